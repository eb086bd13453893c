# from tvm.script import tir as T

@T.prim_func
def main(X0: T.Buffer((9,), "float32"), heat: T.Buffer((4, 9), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for t_0 in range(2):
        for t_i_0 in range(t_0, t_0 + 5):
            if t_0 == 0:
                for t_i_1 in range(T.min(1, 8 - t_i_0 * 2) + 1):
                    with T.block("heat_init"):
                        v__ = T.axis.spatial(1, 0)
                        v_i = T.axis.spatial(9, t_i_0 * 2 + t_i_1)
                        T.reads(X0[v_i])
                        T.writes(heat[v__, v_i])
                        heat[v__, v_i] = X0[v_i]
            for t_1 in range(T.max(0, 1 - t_0 * 2), 2):
                for t_i_1 in range(T.max(0, t_0 * 2 + t_1 - t_i_0 * 2), T.min(1, t_0 * 2 + t_1 - t_i_0 * 2 + 8) + 1):
                    with T.block("heat_update"):
                        v_t = T.axis.spatial((1, 4), t_0 * 2 + t_1)
                        v_i = T.axis.spatial(9, t_i_0 * 2 + t_i_1 - t_0 * 2 - t_1)
                        T.reads(heat[v_t - 1, v_i - 1:v_i - 1 + 3])
                        T.writes(heat[v_t, v_i])
                        heat[v_t, v_i] = T.if_then_else(0 < v_i and v_i < 8, T.float32(0.25) * heat[v_t - 1, v_i - 1] + T.float32(0.5) * heat[v_t - 1, v_i] + T.float32(0.25) * heat[v_t - 1, v_i + 1], heat[v_t - 1, v_i])
