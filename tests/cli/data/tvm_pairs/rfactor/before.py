# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 128), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 128):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]
