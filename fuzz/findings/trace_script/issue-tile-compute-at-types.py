# program: stencil1d
sch.poly_tile(band="_", sizes=[7, 3])
sch.poly_compute_at_tile(block="heat_init", loop="i")
