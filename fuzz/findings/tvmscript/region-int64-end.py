# A region whose start is int32 and whose end is int64: the extent was widened but the
# start was not, and printing the block aborted on an int32 + int64 addition.
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            v = T.axis.spatial(8, i)
            T.reads(A[v:T.int64(8)])
            T.writes(B[v])
            B[v] = A[v]
