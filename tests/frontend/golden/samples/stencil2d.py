# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256, 256), "float32"), jacobi: T.Buffer((16, 256, 256), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for _, i, j in T.grid(1, 256, 256):
        with T.block("jacobi_init"):
            v__, v_i, v_j = T.axis.remap("SSS", [_, i, j])
            T.reads(A[v_i, v_j])
            T.writes(jacobi[v__, v_i, v_j])
            jacobi[v__, v_i, v_j] = A[v_i, v_j]
    for t in range(1, 16):
        for i, j in T.grid(256, 256):
            with T.block("jacobi_update"):
                v_t, v_i, v_j = T.axis.remap("SSS", [t, i, j])
                T.reads(jacobi[v_t - 1, v_i - 1:v_i - 1 + 3, v_j - 1:v_j - 1 + 3])
                T.writes(jacobi[v_t, v_i, v_j])
                jacobi[v_t, v_i, v_j] = T.if_then_else(0 < v_i and v_i < 255 and 0 < v_j and v_j < 255, T.float32(0.2) * (jacobi[v_t - 1, v_i, v_j] + jacobi[v_t - 1, v_i - 1, v_j] + jacobi[v_t - 1, v_i + 1, v_j] + jacobi[v_t - 1, v_i, v_j - 1] + jacobi[v_t - 1, v_i, v_j + 1]), jacobi[v_t - 1, v_i, v_j])
