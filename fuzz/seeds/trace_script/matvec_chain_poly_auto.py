# Hand-made fuzz seed: the isl scheduler with fusion and tiling.
sch.poly_auto(fusion="max", outer_coincidence=False, maximize_band_depth=True, algorithm="isl", tile=[16, 16], simplify_deps=True)
