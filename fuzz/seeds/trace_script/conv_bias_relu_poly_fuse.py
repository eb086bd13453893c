# Hand-made fuzz seed: shift one statement, fuse two sibling loops, distribute them again.
sch.poly_shift(statement="T_relu", member="y@T_relu", offset=0)
sch.poly_fuse("f@T_add", "f@T_relu")
sch.poly_distribute(band="f@T_add")
