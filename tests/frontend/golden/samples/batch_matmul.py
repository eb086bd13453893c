# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 128, 64), "float32"), B: T.Buffer((16, 64, 128), "float32"), batch_matmul: T.Buffer((16, 128, 128), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for b, i, j, k in T.grid(16, 128, 128, 64):
        with T.block("batch_matmul"):
            v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
            T.reads(A[v_b, v_i, v_k], B[v_b, v_k, v_j])
            T.writes(batch_matmul[v_b, v_i, v_j])
            with T.init():
                batch_matmul[v_b, v_i, v_j] = T.float32(0)
            batch_matmul[v_b, v_i, v_j] = batch_matmul[v_b, v_i, v_j] + A[v_b, v_i, v_k] * B[v_b, v_k, v_j]
