# program: matmul
b = sch.get_block("C")
sch.transform_layout(b, ("write", 0), lambda i, j: (i, j * 32))
