# Applies to samples/batch_matmul.te: tile i and j by 32, reorder k outside the inner
# tiles, fuse the batch loop with the outer i tile and parallelize the fused loop.
b0 = sch.get_block(name="batch_matmul", func_name="main")
loops = sch.get_loops(block=b0)
i_tiles = sch.split(loop=loops[1], factors=[None, 32])
j_tiles = sch.split(loop=loops[2], factors=[None, 32])
sch.reorder(i_tiles[0], j_tiles[0], loops[-1], i_tiles[1], j_tiles[1])
fused = sch.fuse(loops[0], i_tiles[0])
sch.parallel(fused)
