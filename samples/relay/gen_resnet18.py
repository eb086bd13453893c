#!/usr/bin/env python3
"""Writes ResNet-18 in Relay text as TVM's relay.testing.resnet builds it (batch 1,
3x224x224, NCHW): a batch-norm on the data (scale=False), the 7x7/2 stem conv + bn +
relu + 3x3/2 max-pool, four stages of two residual units (pre-activation: bn, relu,
3x3 conv, bn, relu, 3x3 conv, plus the input or a 1x1 strided shortcut conv of the first
activation), then bn, relu, global average pool, batch_flatten, dense + bias_add and
softmax. Batch norms are nn.batch_norm(...).0 with epsilon 2e-05 as in TVM, so
SimplifyInference and FoldConstant have work to do. Weights are meta[relay.Constant][i]
without a metadata section: loopscape infers their shapes from the ops.

Standard library only. Usage:
  gen_resnet18.py > resnet18.relay
  gen_resnet18.py --width 8 --image 64   # a narrow, small test variant
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

    def batch_norm(self, x, scale=True):
        args = ", ".join([x] + [self.meta() for _ in range(4)])
        extra = "" if scale else ", scale=False"
        bn = self.bind("nn.batch_norm(%s, epsilon=2e-05f%s)" % (args, extra))
        return self.bind("%s.0" % bn)

    def conv(self, x, channels, kernel, stride, pad):
        attrs = ["channels=%d" % channels, "kernel_size=[%d, %d]" % (kernel, kernel)]
        if stride != 1:
            attrs.insert(0, "strides=[%d, %d]" % (stride, stride))
        if pad:
            attrs.insert(1 if stride != 1 else 0, "padding=[%d, %d, %d, %d]" % (pad, pad, pad, pad))
        return self.bind("nn.conv2d(%s, %s, %s)" % (x, self.meta(), ", ".join(attrs)))

    def relu(self, x):
        return self.bind("nn.relu(%s)" % x)


def residual_unit(w, data, filters, stride, dim_match):
    act1 = w.relu(w.batch_norm(data))
    conv1 = w.conv(act1, filters, 3, stride, 1)
    act2 = w.relu(w.batch_norm(conv1))
    conv2 = w.conv(act2, filters, 3, 1, 1)
    shortcut = data if dim_match else w.conv(act1, filters, 1, stride, 0)
    return w.bind("add(%s, %s)" % (conv2, shortcut))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--width", type=int, default=1, help="divide every channel count by this (test variants)")
    parser.add_argument("--image", type=int, default=224, help="input height and width")
    parser.add_argument("--classes", type=int, default=1000)
    args = parser.parse_args()
    filters = [max(1, f // args.width) for f in (64, 64, 128, 256, 512)]
    w = Writer()
    body = w.batch_norm("%data", scale=False)
    body = w.conv(body, filters[0], 7, 2, 3)
    body = w.relu(w.batch_norm(body))
    body = w.bind("nn.max_pool2d(%s, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])" % body)
    for stage in range(4):
        stride = 1 if stage == 0 else 2
        body = residual_unit(w, body, filters[stage + 1], stride, False)
        body = residual_unit(w, body, filters[stage + 1], 1, True)
    body = w.relu(w.batch_norm(body))
    body = w.bind("nn.global_avg_pool2d(%s)" % body)
    body = w.bind("nn.batch_flatten(%s)" % body)
    body = w.bind("nn.dense(%s, %s, units=%d)" % (body, w.meta(), args.classes))
    body = w.bind("nn.bias_add(%s, %s, axis=-1)" % (body, w.meta()))
    out = "  nn.softmax(%s)" % body
    variant = "" if args.width == 1 and args.image == 224 else " (width / %d, %dx%d input)" % (args.width, args.image, args.image)
    print('#[version = "0.0.5"]')
    print("// ResNet-18 v1 as TVM's relay.testing.resnet builds it%s; written by" % variant)
    print("// samples/relay/gen_resnet18.py. %d weights as meta constants without metadata: their" % w.const)
    print("// shapes are inferred. Try: `loopscape-cli relay groups resnet18.relay --verbose` (the")
    print("// passes turn the batch norms into multiply/add, fold the constants and fuse each conv")
    print("// with its scale, shift, relu and residual add), then `relay extract ... --group 1`.")
    print("def @main(%%data: Tensor[(1, 3, %d, %d), float32]) -> Tensor[(1, %d), float32] {" % (args.image, args.image, args.classes))
    print("\n".join(w.lines))
    print(out)
    print("}")


if __name__ == "__main__":
    main()
