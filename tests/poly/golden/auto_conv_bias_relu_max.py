# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 2, 5, 5), "float32"), weight: T.Buffer((32, 2, 3, 3), "float32"), bias: T.Buffer((32,), "float32"), T_relu: T.Buffer((1, 32, 5, 5), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    pad_temp = T.alloc_buffer((1, 2, 7, 7))
    conv2d_nchw = T.alloc_buffer((1, 32, 5, 5))
    T_add = T.alloc_buffer((1, 32, 5, 5))
    for rc_i1, yy_ry_i2_y, xx_rx_i3_x in T.grid(2, 7, 7):
        with T.block("pad_temp"):
            v_i0 = T.axis.spatial(1, 0)
            v_i1, v_i2, v_i3 = T.axis.remap("SSS", [rc_i1, yy_ry_i2_y, xx_rx_i3_x])
            T.reads(data[v_i0, v_i1, v_i2 - 1, v_i3 - 1])
            T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
            pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(1 <= v_i2 and v_i2 < 6 and 1 <= v_i3 and v_i3 < 6, data[v_i0, v_i1, v_i2 - 1, v_i3 - 1], T.float32(0))
        for ff in range(32):
            for yy in range(T.max(0, yy_ry_i2_y - 2), T.min(4, yy_ry_i2_y) + 1):
                for xx in range(T.max(0, xx_rx_i3_x - 2), T.min(4, xx_rx_i3_x) + 1):
                    with T.block("conv2d_nchw"):
                        v_nn = T.axis.spatial(1, 0)
                        v_ff = T.axis.spatial(32, ff)
                        v_yy = T.axis.spatial(5, yy)
                        v_xx = T.axis.spatial(5, xx)
                        v_rc = T.axis.reduce(2, rc_i1)
                        v_ry = T.axis.reduce(3, yy_ry_i2_y - yy)
                        v_rx = T.axis.reduce(3, xx_rx_i3_x - xx)
                        T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], weight[v_ff, v_rc, v_ry, v_rx])
                        T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                        with T.init():
                            conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
                        conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * weight[v_ff, v_rc, v_ry, v_rx]
        if rc_i1 == 1 and yy_ry_i2_y >= 2 and xx_rx_i3_x >= 2:
            for f in range(32):
                with T.block("T_add"):
                    v_n = T.axis.spatial(1, 0)
                    v_f = T.axis.spatial(32, f)
                    v_y = T.axis.spatial(5, yy_ry_i2_y - 2)
                    v_x = T.axis.spatial(5, xx_rx_i3_x - 2)
                    T.reads(conv2d_nchw[v_n, v_f, v_y, v_x], bias[v_f])
                    T.writes(T_add[v_n, v_f, v_y, v_x])
                    T_add[v_n, v_f, v_y, v_x] = conv2d_nchw[v_n, v_f, v_y, v_x] + bias[v_f]
            for f in range(32):
                with T.block("T_relu"):
                    v_n = T.axis.spatial(1, 0)
                    v_f = T.axis.spatial(32, f)
                    v_y = T.axis.spatial(5, yy_ry_i2_y - 2)
                    v_x = T.axis.spatial(5, xx_rx_i3_x - 2)
                    T.reads(T_add[v_n, v_f, v_y, v_x])
                    T.writes(T_relu[v_n, v_f, v_y, v_x])
                    T_relu[v_n, v_f, v_y, v_x] = T.max(T_add[v_n, v_f, v_y, v_x], T.float32(0))
