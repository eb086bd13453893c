# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 16), "float32"), C: T.Buffer((32, 16), "float32")):
        # with T.sblock("root"):
        for i, j in T.grid(32, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(A[vi, vj] * T.float32(2.0) + T.float32(1.0), T.float32(0.0))
