# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 48), "float32"), C: T.Buffer((64, 48), "float32")):
    for i, j, k in T.grid(64, 48, 32):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
