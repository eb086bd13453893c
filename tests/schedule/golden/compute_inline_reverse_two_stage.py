# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(64, 64):
        with T.block("B"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = A[v_i, v_j] * T.float32(2) + T.float32(1)
