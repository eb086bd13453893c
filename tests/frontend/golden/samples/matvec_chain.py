# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((512, 512), "float32"), B: T.Buffer((512, 512), "float32"), x: T.Buffer((512,), "float32"), y: T.Buffer((512,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    Bx = T.alloc_buffer((512,))
    for i, k in T.grid(512, 512):
        with T.block("Bx"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(B[v_i, v_k], x[v_k])
            T.writes(Bx[v_i])
            with T.init():
                Bx[v_i] = T.float32(0)
            Bx[v_i] = Bx[v_i] + B[v_i, v_k] * x[v_k]
    for i, j in T.grid(512, 512):
        with T.block("y"):
            v_i, v_j = T.axis.remap("SR", [i, j])
            T.reads(A[v_i, v_j], Bx[v_j])
            T.writes(y[v_i])
            with T.init():
                y[v_i] = T.float32(0)
            y[v_i] = y[v_i] + A[v_i, v_j] * Bx[v_j]
