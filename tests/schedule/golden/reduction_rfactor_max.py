# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    B_rf = T.alloc_buffer((32, 8))
    for i, k in T.grid(8, 32):
        with T.block("B_rf"):
            vk, v_i = T.axis.remap("SS", [k, i])
            T.reads(A[v_i, vk])
            T.writes(B_rf[vk, v_i])
            with T.init():
                B_rf[vk, v_i] = T.float32(-3.4028235e+38)
            B_rf[vk, v_i] = T.max(B_rf[vk, v_i], A[v_i, vk])
    for i, k in T.grid(8, 32):
        with T.block("B"):
            vk, v_i = T.axis.remap("RS", [k, i])
            T.reads(B_rf[vk, v_i])
            T.writes(B[v_i])
            with T.init():
                B[v_i] = T.float32(-3.4028235e+38)
            B[v_i] = T.max(B[v_i], B_rf[vk, v_i])
