# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((1, 8, 32), "float32"), B: T.Buffer((1, 8, 32), "float32")):
        # with T.sblock("root"):
        for c in T.parallel(8):
            for n, w_0, w_1 in T.grid(1, 4, 8):
                with T.sblock("B"):
                    vn, vc = T.axis.remap("SS", [n, c])
                    vw = T.axis.spatial(32, w_0 * 8 + w_1)
                    T.reads(A[vn, vc, vw])
                    T.writes(B[vn, vc, vw])
                    B[vn, vc, vw] = A[vn, vc, vw] * T.float32(2.0)
