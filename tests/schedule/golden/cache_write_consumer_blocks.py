# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 16), "float32"), C: T.Buffer((32, 16), "float32"), D: T.Buffer((32, 16), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((32, 16))
    B_shared = T.alloc_buffer((32, 16), scope="shared")
    for i, j in T.grid(32, 16):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(B_shared[v_i, v_j])
            B_shared[v_i, v_j] = A[v_i, v_j] * T.float32(2)
    for i, j in T.grid(32, 16):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(B_shared[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = B_shared[v_i, v_j] + T.float32(1)
    for ax0, ax1 in T.grid(32, 16):
        with T.block("B_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(B_shared[v0, v1])
            T.writes(B[v0, v1])
            B[v0, v1] = B_shared[v0, v1]
    for i, j in T.grid(32, 16):
        with T.block("D"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(B[v_i, v_j])
            T.writes(D[v_i, v_j])
            D[v_i, v_j] = B[v_i, v_j] * T.float32(3)
