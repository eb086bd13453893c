# from tvm.script import tir as T

@T.prim_func
def main(x: T.Buffer((1024,), "int32"), psum: T.Buffer((1024,), "int32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    # with T.block("root"):
    for t in range(1):
        with T.block("psum_init"):
            v_t = T.axis.spatial(1, t)
            T.reads(x[0])
            T.writes(psum[v_t])
            psum[v_t] = x[0]
    for t in range(1, 1024):
        with T.block("psum_update"):
            v_t = T.axis.spatial((1, 1024), t)
            T.reads(psum[v_t - 1], x[v_t])
            T.writes(psum[v_t])
            psum[v_t] = psum[v_t - 1] + x[v_t]
