# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 5), "float32"), B: T.Buffer((5, 6), "float32"), C: T.Buffer((8, 6), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(8):
        for j in T.parallel(6):
            for k in range(5):
                with T.block("C"):
                    v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                    T.reads(A[v_i, v_k], B[v_k, v_j])
                    T.writes(C[v_i, v_j])
                    with T.init():
                        C[v_i, v_j] = T.float32(0)
                    C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
