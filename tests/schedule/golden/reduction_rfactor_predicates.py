# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 12), "int32"), B: T.Buffer((12, 16), "int32"), C: T.Buffer((8, 16), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    C_rf = T.alloc_buffer((5, 8, 16), "int32")
    for i, j_0, j_1, k_0, k_1 in T.grid(8, 4, 5, 3, 5):
        with T.block("C_rf"):
            vk_1, v_i = T.axis.remap("SS", [k_1, i])
            v_j = T.axis.spatial(16, j_0 * 5 + j_1)
            vk_0 = T.axis.reduce(3, k_0)
            T.where(j_0 * 5 + j_1 < 16 and k_0 * 5 + k_1 < 12)
            T.reads(A[v_i, vk_0 * 5 + vk_1], B[vk_0 * 5 + vk_1, v_j])
            T.writes(C_rf[vk_1, v_i, v_j])
            with T.init():
                C_rf[vk_1, v_i, v_j] = 0
            C_rf[vk_1, v_i, v_j] = C_rf[vk_1, v_i, v_j] + A[v_i, vk_0 * 5 + vk_1] * B[vk_0 * 5 + vk_1, v_j]
    for i, j_0, j_1, k_1 in T.grid(8, 4, 5, 5):
        with T.block("C"):
            vk_1, v_i = T.axis.remap("RS", [k_1, i])
            v_j = T.axis.spatial(16, j_0 * 5 + j_1)
            T.where(j_0 * 5 + j_1 < 16)
            T.reads(C_rf[vk_1, v_i, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = 0
            C[v_i, v_j] = C[v_i, v_j] + C_rf[vk_1, v_i, v_j]
