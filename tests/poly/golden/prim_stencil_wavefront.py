# from tvm.script import tir as T

@T.prim_func
def main(var_A: T.handle):
    A = T.match_buffer(var_A, (T.Add(5, 1), 10))
    # with T.block("root"):
    for t in range(5):
        for i in T.parallel(t + 1, t + 1 + 8):
            with T.block("stencil"):
                v_t = T.axis.spatial(5, t)
                v_i = T.axis.spatial((1, 1 + T.Sub(10, 2)), i - t)
                T.reads(A[v_t, v_i - 1:v_i - 1 + 3])
                T.writes(A[v_t + 1, v_i])
                A[v_t + 1, v_i] = A[v_t, v_i - 1] + A[v_t, v_i] + A[v_t, v_i + 1]
