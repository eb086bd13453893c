# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 48), "float32"), C: T.Buffer((64, 48), "float32")):
        # with T.sblock("root"):
        for i_0 in T.parallel(4):
            for j_0, k, i_1 in T.grid(3, 32, 16):
                for j_1 in T.vectorized(16):
                    with T.sblock("C"):
                        vi = T.axis.spatial(64, i_0 * 16 + i_1)
                        vj = T.axis.spatial(48, j_0 * 16 + j_1)
                        vk = T.axis.reduce(32, k)
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C[vi, vj])
                        with T.init():
                            C[vi, vj] = T.float32(0.0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
