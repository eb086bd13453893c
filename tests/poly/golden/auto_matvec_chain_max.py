# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((6, 6), "float32"), B: T.Buffer((6, 6), "float32"), x: T.Buffer((6,), "float32"), y: T.Buffer((6,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    Bx = T.alloc_buffer((6,))
    for i_j in range(6):
        for k in range(6):
            with T.block("Bx"):
                v_i, v_k = T.axis.remap("SR", [i_j, k])
                T.reads(B[v_i, v_k], x[v_k])
                T.writes(Bx[v_i])
                with T.init():
                    Bx[v_i] = T.float32(0)
                Bx[v_i] = Bx[v_i] + B[v_i, v_k] * x[v_k]
        for i in range(6):
            with T.block("y"):
                v_i, v_j = T.axis.remap("SR", [i, i_j])
                T.reads(A[v_i, v_j], Bx[v_j])
                T.writes(y[v_i])
                with T.init():
                    y[v_i] = T.float32(0)
                y[v_i] = y[v_i] + A[v_i, v_j] * Bx[v_j]
