# Hand-made fuzz seed: the isl scheduler (minimal fusion, Feautrier) then a tile compute_at.
sch.poly_auto(fusion="min", algorithm="feautrier")
