# Hand-made fuzz seed: an illegal interchange (refused with a counterexample).
sch.poly_interchange(band="t", permutation=[1, 0])
