# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((10,), "float32"), C: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((9,))
    for i in range(9):
        with T.block("B"):
            v_i = T.axis.spatial(9, i)
            T.reads(A[v_i:v_i + 2])
            T.writes(B[v_i])
            B[v_i] = A[v_i] + A[v_i + 1]
        with T.block("C"):
            v_i = T.axis.spatial(8, i - 1)
            T.where(i >= 1)
            T.reads(B[v_i:v_i + 2])
            T.writes(C[v_i])
            C[v_i] = B[v_i] + B[v_i + 1]
