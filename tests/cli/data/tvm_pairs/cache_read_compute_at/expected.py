# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 48), "float32"), C: T.Buffer((64, 48), "float32")):
        # with T.sblock("root"):
        A_global = T.sblock_alloc_buffer((64, 32))
        for i in range(64):
            for ax0 in range(32):
                with T.sblock("A_global"):
                    v0, v1 = T.axis.remap("SS", [i, ax0])
                    T.reads(A[v0, v1])
                    T.writes(A_global[v0, v1])
                    A_global[v0, v1] = A[v0, v1]
            for j, k in T.grid(48, 32):
                with T.sblock("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(A_global[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0.0)
                    C[vi, vj] = C[vi, vj] + A_global[vi, vk] * B[vk, vj]
