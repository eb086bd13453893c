# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 64), "int32"), B: T.Buffer((16,), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B_rf = T.alloc_buffer((16, 8), "int32")
    for i, k_0, k_1 in T.grid(16, 8, 8):
        with T.block("B_rf"):
            vk_0, v_i, vk_1 = T.axis.remap("SSR", [k_0, i, k_1])
            T.reads(A[v_i, vk_0 * 8 + vk_1])
            T.writes(B_rf[v_i, vk_0])
            with T.init():
                B_rf[v_i, vk_0] = 0
            B_rf[v_i, vk_0] = B_rf[v_i, vk_0] + A[v_i, vk_0 * 8 + vk_1]
    for i, k_0 in T.grid(16, 8):
        with T.block("B"):
            vk_0, v_i = T.axis.remap("RS", [k_0, i])
            T.reads(B_rf[v_i, vk_0])
            T.writes(B[v_i])
            with T.init():
                B[v_i] = 0
            B[v_i] = B[v_i] + B_rf[v_i, vk_0]
