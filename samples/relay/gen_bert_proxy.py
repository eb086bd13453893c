#!/usr/bin/env python3
"""Writes a BERT-base-like encoder in Relay text: the "BERT proxy" that polyhedral mappers
for TVM have been evaluated on. Batch 1, sequence 128, hidden 768, 12 heads, 2 layers:
each layer is self-attention (dense Q/K/V with bias, reshape + transpose into heads,
batch_matmul of Q and K scaled by 1/sqrt(head size), softmax, batch_matmul with V, heads
merged back, output dense + bias, residual add, layer norm) and a feed-forward block
(dense to 4x hidden + bias, GELU through erf, dense back + bias, residual add, layer norm).
Weights are meta[relay.Constant][i] without a metadata section: loopscape infers their
shapes from units= and the bias/layer-norm axes.

Standard library only. Usage:
  gen_bert_proxy.py > bert_proxy.relay
  gen_bert_proxy.py --seq 8 --hidden 32 --heads 2 --layers 1   # a small test variant
"""
import argparse


class Writer:
    def __init__(self):
        self.lines = []
        self.next = 0
        self.const = 0

    def bind(self, text):
        name = "%%%d" % self.next
        self.next += 1
        self.lines.append("  %s = %s;" % (name, text))
        return name

    def meta(self):
        m = "meta[relay.Constant][%d]" % self.const
        self.const += 1
        return m

    def linear(self, x, units):
        d = self.bind("nn.dense(%s, %s, units=%d)" % (x, self.meta(), units))
        return self.bind("nn.bias_add(%s, %s, axis=-1)" % (d, self.meta()))

    def layer_norm(self, x):
        return self.bind("nn.layer_norm(%s, %s, %s, epsilon=1e-12f)" % (x, self.meta(), self.meta()))


def heads(w, x, seq, nheads, dhead, transpose_last=False):
    r = w.bind("reshape(%s, newshape=[1, %d, %d, %d])" % (x, seq, nheads, dhead))
    axes = "[0, 2, 3, 1]" if transpose_last else "[0, 2, 1, 3]"
    t = w.bind("transpose(%s, axes=%s)" % (r, axes))
    shape = (nheads, dhead, seq) if transpose_last else (nheads, seq, dhead)
    return w.bind("reshape(%s, newshape=[%d, %d, %d])" % ((t,) + shape))


def layer(w, x, seq, hidden, nheads, ffn):
    dhead = hidden // nheads
    q = heads(w, w.linear(x, hidden), seq, nheads, dhead)
    k = heads(w, w.linear(x, hidden), seq, nheads, dhead)
    v = heads(w, w.linear(x, hidden), seq, nheads, dhead, transpose_last=True)
    scores = w.bind("nn.batch_matmul(%s, %s)" % (q, k))
    scaled = w.bind("divide(%s, %sf)" % (scores, repr(float(dhead) ** 0.5).rstrip("0").rstrip(".")))
    probs = w.bind("nn.softmax(%s)" % scaled)
    ctx = w.bind("nn.batch_matmul(%s, %s)" % (probs, v))
    merged = w.bind("reshape(%s, newshape=[1, %d, %d, %d])" % (ctx, nheads, seq, dhead))
    merged = w.bind("transpose(%s, axes=[0, 2, 1, 3])" % merged)
    merged = w.bind("reshape(%s, newshape=[%d, %d])" % (merged, seq, hidden))
    attn = w.linear(merged, hidden)
    x = w.layer_norm(w.bind("add(%s, %s)" % (attn, x)))
    h = w.linear(x, ffn)
    # GELU(h) = 0.5 * h * (1 + erf(h / sqrt(2)))
    e = w.bind("erf(%s)" % w.bind("multiply(%s, 0.707107f)" % h))
    g = w.bind("multiply(%s, %s)" % (w.bind("multiply(%s, 0.5f)" % h), w.bind("add(%s, 1f)" % e)))
    out = w.linear(g, hidden)
    return w.layer_norm(w.bind("add(%s, %s)" % (out, x)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--layers", type=int, default=2)
    args = parser.parse_args()
    w = Writer()
    x = w.bind("reshape(%%x, newshape=[%d, %d])" % (args.seq, args.hidden))
    for _ in range(args.layers):
        x = layer(w, x, args.seq, args.hidden, args.heads, 4 * args.hidden)
    print('#[version = "0.0.5"]')
    print("// BERT proxy: %d encoder layers, sequence %d, hidden %d, %d heads, GELU through erf," % (args.layers, args.seq, args.hidden, args.heads))
    print("// layer norm; written by samples/relay/gen_bert_proxy.py; %d weights as meta constants" % w.const)
    print("// whose shapes are inferred. Try: `loopscape-cli relay groups bert_proxy.relay` (each")
    print("// dense absorbs its bias; softmax and the layer-norm reductions stand alone), then")
    print("// `relay extract bert_proxy.relay --group 0 --out dense.te` and tile the matmul.")
    print("def @main(%%x: Tensor[(1, %d, %d), float32]) -> Tensor[(%d, %d), float32] {" % (args.seq, args.hidden, args.seq, args.hidden))
    print("\n".join(w.lines))
    print("  %s" % x)
    print("}")


if __name__ == "__main__":
    main()
