# docs/tutorial.md: tile the (t, i) band of the heat equation by 4 x 4 as it is. Refused:
# a tile would need values of the next tile in i from the previous time step.
def apply_trace(sch):
    sch.poly_tile(band="t", sizes=[4, 4])
