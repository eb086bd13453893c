# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((128, 1024), "float32"), T_softmax_norm: T.Buffer((128, 1024), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    T_softmax_maxelem = T.alloc_buffer((128,))
    T_softmax_exp = T.alloc_buffer((128, 1024))
    T_softmax_expsum = T.alloc_buffer((128,))
    for i, k1 in T.grid(128, 1024):
        with T.block("T_softmax_maxelem"):
            v_i, v_k1 = T.axis.remap("SR", [i, k1])
            T.reads(X[v_i, v_k1])
            T.writes(T_softmax_maxelem[v_i])
            with T.init():
                T_softmax_maxelem[v_i] = T.float32(-3.4028235e+38)
            T_softmax_maxelem[v_i] = T.max(T_softmax_maxelem[v_i], X[v_i, v_k1])
    for i, j in T.grid(128, 1024):
        with T.block("T_softmax_exp"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(X[v_i, v_j], T_softmax_maxelem[v_i])
            T.writes(T_softmax_exp[v_i, v_j])
            T_softmax_exp[v_i, v_j] = T.exp(X[v_i, v_j] - T_softmax_maxelem[v_i])
    for i, k2 in T.grid(128, 1024):
        with T.block("T_softmax_expsum"):
            v_i, v_k2 = T.axis.remap("SR", [i, k2])
            T.reads(T_softmax_exp[v_i, v_k2])
            T.writes(T_softmax_expsum[v_i])
            with T.init():
                T_softmax_expsum[v_i] = T.float32(0)
            T_softmax_expsum[v_i] = T_softmax_expsum[v_i] + T_softmax_exp[v_i, v_k2]
    for i, j in T.grid(128, 1024):
        with T.block("T_softmax_norm"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(T_softmax_exp[v_i, v_j], T_softmax_expsum[v_i])
            T.writes(T_softmax_norm[v_i, v_j])
            T_softmax_norm[v_i, v_j] = T_softmax_exp[v_i, v_j] / T_softmax_expsum[v_i]
