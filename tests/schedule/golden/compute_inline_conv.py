# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 4, 8, 8), "float32"), weight: T.Buffer((4, 4, 3, 3), "float32"), conv2d_nchw: T.Buffer((1, 4, 8, 8), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for nn, ff, yy, xx, rc, ry, rx in T.grid(1, 4, 8, 8, 4, 3, 3):
        with T.block("conv2d_nchw"):
            v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
            T.reads(data[v_nn, v_rc, v_yy + v_ry - 1, v_xx + v_rx - 1], weight[v_ff, v_rc, v_ry, v_rx])
            T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
            with T.init():
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
            conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + T.if_then_else(1 <= v_yy + v_ry and v_yy + v_ry < 9 and 1 <= v_xx + v_rx and v_xx + v_rx < 9, data[v_nn, v_rc, v_yy + v_ry - 1, v_xx + v_rx - 1], T.float32(0)) * weight[v_ff, v_rc, v_ry, v_rx]
