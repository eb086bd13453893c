# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((64, 64))
    E = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(B[v_i, v_j])
            B[v_i, v_j] = A[v_i, v_j] * T.float32(2)
        for ax0, ax1 in T.grid(1, 1):
            with T.block("E"):
                v_i = T.axis.spatial(64, i + ax0)
                v_j = T.axis.spatial(64, j + ax1)
                T.reads(A[v_i, v_j])
                T.writes(E[v_i, v_j])
                E[v_i, v_j] = A[v_i, v_j] + T.float32(1)
        with T.block("D"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(B[v_i, v_j], E[v_i, v_j])
            T.writes(D[v_i, v_j])
            D[v_i, v_j] = B[v_i, v_j] + E[v_i, v_j]
