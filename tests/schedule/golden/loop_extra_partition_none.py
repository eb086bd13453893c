# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    with T.block("root"):
        T.reads()
        T.writes()
        with T.block("B_i_common"):
            T.reads(A[0:100])
            T.writes(B[0:100])
            with T.block("B_i0_partition"):
                T.reads(A[0:68])
                T.writes(B[0:68])
                for i0 in range(68):
                    with T.block("B_i0"):
                        v_i = T.axis.spatial(68, i0)
                        T.reads(A[v_i])
                        T.writes(B[v_i])
                        B[v_i] = A[v_i] * T.float32(2)
            with T.block("B_i1_partition"):
                T.reads(A[68:100])
                T.writes(B[68:100])
                for i1 in range(68, 100):
                    with T.block("B_i1"):
                        v_i = T.axis.spatial((68, 100), i1)
                        T.reads(A[v_i])
                        T.writes(B[v_i])
                        B[v_i] = A[v_i] * T.float32(2)
