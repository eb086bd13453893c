# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 48), "float32"), C: T.Buffer((64, 48), "float32")):
        # with T.sblock("root"):
        for i in range(64):
            for j_init in range(48):
                with T.sblock("C_init"):
                    vi, vj = T.axis.remap("SS", [i, j_init])
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.float32(0.0)
            for k, j in T.grid(32, 48):
                with T.sblock("C_update"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
