# from tvm.script import tir as T

@T.prim_func
def main(var_data: T.handle, weight: T.Buffer((1000, 512), "float32"), var_T_matmul_NT: T.handle):
    T.func_attr({"tir.noalias": T.bool(True)})
    n = T.int32()
    data = T.match_buffer(var_data, (n, 512))
    T_matmul_NT = T.match_buffer(var_T_matmul_NT, (n, 1000))
    # with T.block("root"):
    for i, j, k in T.grid(n, 1000, 512):
        with T.block("T_matmul_NT"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(data[v_i, v_k], weight[v_j, v_k])
            T.writes(T_matmul_NT[v_i, v_j])
            with T.init():
                T_matmul_NT[v_i, v_j] = T.float32(0)
            T_matmul_NT[v_i, v_j] = T_matmul_NT[v_i, v_j] + data[v_i, v_k] * weight[v_j, v_k]
