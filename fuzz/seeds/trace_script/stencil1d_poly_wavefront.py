# Hand-made fuzz seed: the wavefront of the heat stencil (skew, then a parallel member).
sch.poly_skew(band="t", member=1, by_member=0, factor=1)
sch.poly_mark(band="t", member=1, kind="parallel")
