# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((48, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    C_rf = T.alloc_buffer((4, 64, 32))
    for i, j, k_0, k_1 in T.grid(64, 32, 12, 4):
        with T.block("C_rf"):
            vk_1, v_i, v_j, vk_0 = T.axis.remap("SSSR", [k_1, i, j, k_0])
            T.reads(A[v_i, vk_0 * 4 + vk_1], B[vk_0 * 4 + vk_1, v_j])
            T.writes(C_rf[vk_1, v_i, v_j])
            with T.init():
                C_rf[vk_1, v_i, v_j] = T.float32(0)
            C_rf[vk_1, v_i, v_j] = C_rf[vk_1, v_i, v_j] + A[v_i, vk_0 * 4 + vk_1] * B[vk_0 * 4 + vk_1, v_j]
    for i, j, k_1 in T.grid(64, 32, 4):
        with T.block("C"):
            vk_1, v_i, v_j = T.axis.remap("RSS", [k_1, i, j])
            T.reads(C_rf[vk_1, v_i, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0)
            C[v_i, v_j] = C[v_i, v_j] + C_rf[vk_1, v_i, v_j]
