# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 6), "int32"), C: T.Buffer((4, 3), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    S = T.alloc_buffer((4,), "int32")
    for i, j in T.grid(4, 3):
        with T.block("S_init"):
            v_i = T.axis.spatial(4, i)
            T.reads()
            T.writes(S[v_i])
            S[v_i] = 0
        for ax0 in range(6):
            with T.block("S_update"):
                v_i, v_k = T.axis.remap("SR", [i, ax0])
                T.reads(S[v_i], A[v_i, v_k])
                T.writes(S[v_i])
                S[v_i] = S[v_i] + A[v_i, v_k]
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(S[v_i])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = S[v_i] * 2
