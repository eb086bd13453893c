# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((32, 16), "float32"), C: T.Buffer((32, 16), "float32")):
    B = T.sblock_alloc_buffer((32, 16))
    for i, j in T.grid(32, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(32, 16):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(B[vi, vj] + T.float32(1.0), T.float32(0.0))
