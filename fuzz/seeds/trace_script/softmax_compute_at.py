# Hand-made fuzz seed: compute_at, reverse_compute_inline and sampled locations.
from tvm import tir


def apply_trace(sch: tir.Schedule) -> None:
    b0 = sch.get_block("T_softmax_exp")
    consumers = sch.get_consumers(b0)
    producers = sch.get_producers(consumers[0])
    b1 = sch.get_block("T_softmax_maxelem")
    loc = sch.sample_compute_location(b1, decision=0)
    sch.compute_at(b1, loc, preserve_unit_loops=False)
    c = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.5, 0.25, 0.25], decision=0)
    sch.add_unit_loop(b0)
    sch.compute_inline(b0)
