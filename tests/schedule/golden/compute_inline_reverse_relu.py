# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), bias: T.Buffer((48,), "float32"), F: T.Buffer((64, 48), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(64, 48):
        with T.block("E"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], bias[v_j])
            T.writes(F[v_i, v_j])
            F[v_i, v_j] = T.max(A[v_i, v_j] * T.float32(2) + bias[v_j], T.float32(0))
