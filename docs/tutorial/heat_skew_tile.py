# docs/tutorial.md: skew i by t (i' = i + t), then tile by 4 x 4: legal, every
# dependence now points forward in both dimensions.
def apply_trace(sch):
    sch.poly_skew(band="t", member=1, by_member=0, factor=1)
    sch.poly_tile(band="t", sizes=[4, 4])
