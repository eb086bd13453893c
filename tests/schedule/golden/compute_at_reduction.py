# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 48), "float32"), bias: T.Buffer((48,), "float32"), D: T.Buffer((64, 48), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    C = T.alloc_buffer((64, 48))
    for i in range(64):
        for ax0, ax1 in T.grid(48, 32):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, ax0, ax1])
                T.reads(A[v_i, v_k], B[v_k, v_j])
                T.writes(C[v_i, v_j])
                with T.init():
                    C[v_i, v_j] = T.float32(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
        for j in range(48):
            with T.block("D"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(C[v_i, v_j], bias[v_j])
                T.writes(D[v_i, v_j])
                D[v_i, v_j] = T.max(C[v_i, v_j] + bias[v_j], T.float32(0))
