# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((4, 8), "float32"), gamma: T.Buffer((8,), "float32"), beta: T.Buffer((8,), "float32"), T_layer_norm: T.Buffer((4, 8), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_mean = T.alloc_buffer((4,))
    T_var = T.alloc_buffer((4,))
    for i in range(4):
        for k in range(8):
            with T.block("T_mean"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(data[v_i, v_k])
                T.writes(T_mean[v_i])
                with T.init():
                    T_mean[v_i] = T.float32(0)
                T_mean[v_i] = T_mean[v_i] + data[v_i, v_k] / T.float32(8)
        for ax0 in range(8):
            with T.block("T_var"):
                v_i, v_kv = T.axis.remap("SR", [i, ax0])
                T.reads(data[v_i, v_kv], T_mean[v_i])
                T.writes(T_var[v_i])
                with T.init():
                    T_var[v_i] = T.float32(0)
                T_var[v_i] = T_var[v_i] + (data[v_i, v_kv] - T_mean[v_i]) * (data[v_i, v_kv] - T_mean[v_i]) / T.float32(8)
        for ax0 in range(8):
            with T.block("T_layer_norm"):
                v_i, v_j = T.axis.remap("SS", [i, ax0])
                T.reads(data[v_i, v_j], T_mean[v_i], T_var[v_i], gamma[v_j], beta[v_j])
                T.writes(T_layer_norm[v_i, v_j])
                T_layer_norm[v_i, v_j] = (data[v_i, v_j] - T_mean[v_i]) * T.rsqrt(T_var[v_i] + T.float32(1e-05)) * gamma[v_j] + beta[v_j]
