# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 2, 5, 5), "float32"), weight: T.Buffer((32, 2, 3, 3), "float32"), bias: T.Buffer((32,), "float32"), T_relu: T.Buffer((1, 32, 5, 5), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    pad_temp = T.alloc_buffer((1, 2, 7, 7))
    conv2d_nchw = T.alloc_buffer((1, 32, 5, 5))
    T_add = T.alloc_buffer((1, 32, 5, 5))
    for i1, i2, i3 in T.grid(2, 7, 7):
        with T.block("pad_temp"):
            v_i0 = T.axis.spatial(1, 0)
            v_i1, v_i2, v_i3 = T.axis.remap("SSS", [i1, i2, i3])
            T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
            pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 6 and 1 <= v_i3 and v_i3 < 6, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
    for ff, yy, xx, rc, ry, rx in T.grid(32, 5, 5, 2, 3, 3):
        with T.block("conv2d_nchw"):
            v_nn = T.axis.spatial(1, 0)
            v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSRRR", [ff, yy, xx, rc, ry, rx])
            T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], weight[v_ff, v_rc, v_ry, v_rx])
            T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
            with T.init():
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
            conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * weight[v_ff, v_rc, v_ry, v_rx]
    for f, y, x in T.grid(32, 5, 5):
        with T.block("T_add"):
            v_n = T.axis.spatial(1, 0)
            v_f, v_y, v_x = T.axis.remap("SSS", [f, y, x])
            T.reads(conv2d_nchw[v_n, v_f, v_y, v_x], bias[v_f])
            T.writes(T_add[v_n, v_f, v_y, v_x])
            T_add[v_n, v_f, v_y, v_x] = conv2d_nchw[v_n, v_f, v_y, v_x] + bias[v_f]
    for f, y, x in T.grid(32, 5, 5):
        with T.block("T_relu"):
            v_n = T.axis.spatial(1, 0)
            v_f, v_y, v_x = T.axis.remap("SSS", [f, y, x])
            T.reads(T_add[v_n, v_f, v_y, v_x])
            T.writes(T_relu[v_n, v_f, v_y, v_x])
            T_relu[v_n, v_f, v_y, v_x] = T.max(T_add[v_n, v_f, v_y, v_x], T.float32(0))
