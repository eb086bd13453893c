# from tvm.script import tir as T

@T.prim_func
def main(Input: T.Buffer((1, 32, 112, 112), "float32"), Filter: T.Buffer((32, 1, 3, 3), "float32"), DepthwiseConv2d: T.Buffer((1, 32, 112, 112), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    PaddedInput = T.alloc_buffer((1, 32, 114, 114))
    for b, c, i, j in T.grid(1, 32, 114, 114):
        with T.block("PaddedInput"):
            v_b, v_c, v_i, v_j = T.axis.remap("SSSS", [b, c, i, j])
            T.reads(Input[v_b, v_c, v_i - 1, v_j - 1])
            T.writes(PaddedInput[v_b, v_c, v_i, v_j])
            PaddedInput[v_b, v_c, v_i, v_j] = T.if_then_else(1 <= v_i and v_i < 113 and 1 <= v_j and v_j < 113, Input[v_b, v_c, v_i - 1, v_j - 1], T.float32(0))
    for b, c, i, j, di, dj in T.grid(1, 32, 112, 112, 3, 3):
        with T.block("DepthwiseConv2d"):
            v_b, v_c, v_i, v_j, v_di, v_dj = T.axis.remap("SSSSRR", [b, c, i, j, di, dj])
            T.reads(PaddedInput[v_b, v_c, v_i + v_di, v_j + v_dj], Filter[v_c, 0, v_di, v_dj])
            T.writes(DepthwiseConv2d[v_b, v_c, v_i, v_j])
            with T.init():
                DepthwiseConv2d[v_b, v_c, v_i, v_j] = T.float32(0)
            DepthwiseConv2d[v_b, v_c, v_i, v_j] = DepthwiseConv2d[v_b, v_c, v_i, v_j] + PaddedInput[v_b, v_c, v_i + v_di, v_j + v_dj] * Filter[v_c, 0, v_di, v_dj]
