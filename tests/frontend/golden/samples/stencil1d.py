# from tvm.script import tir as T

@T.prim_func
def main(X0: T.Buffer((1024,), "float32"), heat: T.Buffer((64, 1024), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for _, i in T.grid(1, 1024):
        with T.block("heat_init"):
            v__, v_i = T.axis.remap("SS", [_, i])
            T.reads(X0[v_i])
            T.writes(heat[v__, v_i])
            heat[v__, v_i] = X0[v_i]
    for t in range(1, 64):
        for i in range(1024):
            with T.block("heat_update"):
                v_t, v_i = T.axis.remap("SS", [t, i])
                T.reads(heat[v_t - 1, v_i - 1:v_i - 1 + 3])
                T.writes(heat[v_t, v_i])
                heat[v_t, v_i] = T.if_then_else(0 < v_i and v_i < 1023, T.float32(0.25) * heat[v_t - 1, v_i - 1] + T.float32(0.5) * heat[v_t - 1, v_i] + T.float32(0.25) * heat[v_t - 1, v_i + 1], heat[v_t - 1, v_i])
