# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((1, 8, 32), "float32"), B: T.Buffer((1, 8, 32), "float32")):
    for n, c, w in T.grid(1, 8, 32):
        with T.sblock("B"):
            vn, vc, vw = T.axis.remap("SSS", [n, c, w])
            B[vn, vc, vw] = A[vn, vc, vw] * T.float32(2.0)
