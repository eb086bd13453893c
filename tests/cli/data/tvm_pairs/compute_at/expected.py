# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 16), "float32"), C: T.Buffer((32, 16), "float32")):
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((32, 16))
        for i in range(32):
            for ax0 in range(16):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, ax0])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for j in range(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.max(B[vi, vj] + T.float32(1.0), T.float32(0.0))
