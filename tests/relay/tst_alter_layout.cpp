// AlterOpLayout (relay_alter_layout.h): the graph it writes (exact Relay text), the block
// sizes TOPI's x86 fallback picks, what it leaves in NCHW, packed dense weights, and the
// outputs of every rewritten graph against the graph without the pass through the
// reference interpreter (the convolution sums in another order: 1e-5 relative).
#include "core/frontend/relay/relay_alter_layout.h"
#include "core/frontend/relay/relay_exec.h"
#include "core/frontend/relay/relay_fuse.h"
#include "core/frontend/relay/relay_layout.h"
#include "core/frontend/relay/relay_op.h"
#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_passes.h"
#include "core/frontend/relay/relay_printer.h"
#include "core/frontend/relay/relay_type_infer.h"

#include <QFile>
#include <QtTest>

using namespace loopscape;
using namespace loopscape::frontend::relay;

namespace {

Module typedText(const std::string& text) {
  auto m = parseRelay(text, "t.relay");
  if (!m) qFatal("%s", renderDiagnostic(m.error(), text).c_str());
  auto t = inferTypes(*m);
  if (!t) qFatal("%s", renderDiagnostic(t.error(), text).c_str());
  if (auto r = materializeConstants(*t, "", 0); !r) qFatal("%s", renderDiagnostic(r.error()).c_str());
  return std::move(*t);
}

Module typedFile(const QString& path) {
  QFile f(QStringLiteral(LS_SOURCE_DIR "/") + path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  return typedText(f.readAll().toStdString());
}

/// The pass alone (no folding), typed.
Module altered(const Module& typed, int lanes, AlterLayoutCounts* counts = nullptr) {
  auto t = inferTypes(alterOpLayout(typed, {lanes}, counts));
  if (!t) qFatal("%s", renderDiagnostic(t.error()).c_str());
  return std::move(*t);
}

std::vector<ir::NDArray> randomInputs(const Function& f) {
  std::vector<ir::NDArray> in;
  for (std::size_t k = 0; k < f.params.size(); ++k) {
    ir::NDArray a(f.params[k]->type.shape, f.params[k]->type.dtype);
    a.fillRandom(200 + k);
    in.push_back(a);
  }
  return in;
}

std::vector<ir::NDArray> run(const Module& m, const std::vector<ir::NDArray>& inputs) {
  const Function& f = m.functions.front();
  auto out = runFused(m, f, fuseOps(f), inputs);
  if (!out) qFatal("%s", renderDiagnostic(out.error()).c_str());
  return std::move(*out);
}

/// The full pipeline with or without the pass: the same outputs.
void checkSameOutputs(const Module& typed, int lanes) {
  PassOptions with;
  with.alterLayout = true;
  with.lanes = lanes;
  auto a = runPasses(typed);
  auto b = runPasses(typed, {}, with);
  QVERIFY2(a && b, a ? (b ? "" : renderDiagnostic(b.error()).c_str()) : renderDiagnostic(a.error()).c_str());
  auto inputs = randomInputs(a->functions.front());
  auto ra = run(*a, inputs), rb = run(*b, inputs);
  QCOMPARE(ra.size(), rb.size());
  for (std::size_t k = 0; k < ra.size(); ++k) {
    QCOMPARE(rb[k].shape(), ra[k].shape());
    auto bad = ir::firstMismatch(rb[k], ra[k], 1e-6, 1e-5);
    QVERIFY2(!bad, bad ? qPrintable(QStringLiteral("output %1 at %2: %3, expected %4")
                                        .arg(k)
                                        .arg(bad->index)
                                        .arg(bad->actual)
                                        .arg(bad->expected))
                       : "");
  }
}

const char* kSmall = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 6, 6), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, meta[relay.Constant][1]);
  %2 = nn.relu(%1);
  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2]);
  nn.batch_flatten(%3)
}
)";

} // namespace

class TstRelayAlterLayout : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void printsTheRewrittenGraph() {
    AlterLayoutCounts counts;
    Module m = altered(typedText(kSmall), 8, &counts);
    QCOMPARE(counts.conv2d, 1);
    QCOMPARE(counts.dense, 0);
    // Blocks of 8 (the lanes) for both sides; the bias as (C/8, 1, 1, 8); the pool in
    // NCHW8c; back to NCHW before batch_flatten, the first op that is not layout-free.
    const QString printed = QString::fromStdString(printRelay(m, false));
    QVERIFY2(printed == QStringLiteral(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 6, 6), float32]) -> Tensor[(1, 144), float32] {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW8c") /* ty=Tensor[(1, 1, 6, 6, 8), float32] */;
  %1 = layout_transform(meta[relay.Constant][0] /* ty=Tensor[(16, 8, 3, 3), float32] */, src_layout="OIHW", dst_layout="OIHW8i8o") /* ty=Tensor[(2, 1, 3, 3, 8, 8), float32] */;
  %2 = nn.contrib_conv2d_NCHWc(%0, %1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]) /* ty=Tensor[(1, 2, 6, 6, 8), float32] */;
  %3 = expand_dims(meta[relay.Constant][1] /* ty=Tensor[(16), float32] */, axis=1, num_newaxis=2) /* ty=Tensor[(16, 1, 1), float32] */;
  %4 = layout_transform(%3, src_layout="CHW", dst_layout="CHW8c") /* ty=Tensor[(2, 1, 1, 8), float32] */;
  %5 = add(%2, %4) /* ty=Tensor[(1, 2, 6, 6, 8), float32] */;
  %6 = nn.relu(%5) /* ty=Tensor[(1, 2, 6, 6, 8), float32] */;
  %7 = nn.max_pool2d(%6, pool_size=[2, 2], strides=[2, 2], layout="NCHW8c") /* ty=Tensor[(1, 2, 3, 3, 8), float32] */;
  %8 = layout_transform(%7, src_layout="NCHW8c", dst_layout="NCHW") /* ty=Tensor[(1, 16, 3, 3), float32] */;
  nn.batch_flatten(%8) /* ty=Tensor[(1, 144), float32] */
}

)"),
             qPrintable(printed));
    checkSameOutputs(typedText(kSmall), 8);
    // After FoldConstant the weight and the bias are constants in the blocked layout.
    PassOptions with;
    with.alterLayout = true;
    with.lanes = 16;
    auto full = runPasses(typedText(kSmall), {}, with);
    QVERIFY(full);
    std::vector<std::string> ops;
    for (const auto& n : postOrder(full->functions.front().body))
      if (n->kind == NodeKind::Call) ops.push_back(n->name);
    QCOMPARE(ops, (std::vector<std::string>{"layout_transform", "nn.contrib_conv2d_NCHWc", "add", "nn.relu",
                                            "nn.max_pool2d", "layout_transform", "nn.batch_flatten"}));
  }

  void blockSizesAsTopi_data() {
    QTest::addColumn<int>("lanes");
    QTest::addColumn<int>("inChannels");
    QTest::addColumn<int>("outChannels");
    QTest::addColumn<QString>("kernelLayout");
    // oc block: the largest divisor of the output channels up to the lanes; ic block: the
    // largest divisor of the input channels up to the oc block.
    QTest::newRow("rgb stem") << 16 << 3 << 64 << "OIHW3i16o";
    QTest::newRow("avx2") << 8 << 64 << 64 << "OIHW8i8o";
    QTest::newRow("odd out") << 16 << 12 << 24 << "OIHW12i12o";
    QTest::newRow("prime out") << 16 << 4 << 7 << "OIHW4i7o";
  }
  void blockSizesAsTopi() {
    QFETCH(int, lanes);
    QFETCH(int, inChannels);
    QFETCH(int, outChannels);
    QFETCH(QString, kernelLayout);
    std::string text = fmt::format(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, {}, 5, 5), float32]) {{
  nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1], channels={}, kernel_size=[3, 3])
}}
)",
                                   inChannels, outChannels);
    Module m = altered(typedText(text), lanes);
    const NodePtr* conv = nullptr;
    auto nodes = postOrder(m.functions.front().body);
    for (const auto& n : nodes)
      if (n->kind == NodeKind::Call && n->name == "nn.contrib_conv2d_NCHWc") conv = &n;
    QVERIFY(conv);
    QCOMPARE(QString::fromStdString((*conv)->attr("kernel_layout")->value.s), kernelLayout);
    checkSameOutputs(typedText(text), lanes);
  }

  void leavesWhatItCannotBlock() {
    // groups=2 and NHWC stay as written, and so does a conv with one output channel (no
    // block above 1): no layout_transform at all.
    const char* text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 5, 5), float32], %y: Tensor[(1, 5, 5, 8), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1], groups=2, channels=8, kernel_size=[3, 3]);
  %1 = nn.conv2d(%y, meta[relay.Constant][1], padding=[1, 1], channels=8, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  %2 = nn.conv2d(%0, meta[relay.Constant][2], padding=[1, 1], channels=1, kernel_size=[3, 3]);
  (%2, %1)
}
)";
    AlterLayoutCounts counts;
    Module m = altered(typedText(text), 16, &counts);
    QCOMPARE(counts.conv2d, 0);
    for (const auto& n : postOrder(m.functions.front().body))
      QVERIFY2(n->name != "layout_transform", n->name.c_str());
  }

  void broadcastOperandsFollowTheBlock() {
    // Operands of every broadcast shape against a blocked result: per-channel (C, 1, 1)
    // and (1, C, 1, 1), a scalar, one value per pixel (H, W) and (1, 1, H, W), a whole
    // NCHW tensor (a parameter), a pooled (N, C, 1, 1) blocked tensor (squeeze-excite),
    // and a residual add of two blocked tensors.
    const char* text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 6, 6), float32], %r: Tensor[(1, 16, 6, 6), float32], %hw: Tensor[(6, 6), float32], %p: Tensor[(1, 1, 6, 6), float32], %c: Tensor[(1, 16, 1, 1), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1], channels=16, kernel_size=[3, 3]);
  %1 = multiply(%0, meta[relay.Constant][1] /* ty=Tensor[(16, 1, 1), float32] */);
  %2 = add(%1, 0.5f);
  %3 = subtract(%2, %hw);
  %4 = add(%3, %p);
  %5 = maximum(%4, %r);
  %6 = multiply(%5, %c);
  %7 = nn.global_avg_pool2d(%6);
  %8 = multiply(%6, %7);
  %9 = nn.conv2d(%8, meta[relay.Constant][2], padding=[0, 0], channels=16, kernel_size=[1, 1]);
  %10 = add(%9, %8);
  %11 = nn.avg_pool2d(%10, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]);
  %12 = nn.pad(%11, 0f, pad_width=[[0, 0], [0, 0], [1, 0], [0, 1]]);
  sigmoid(%12)
}
)";
    AlterLayoutCounts counts;
    Module m = altered(typedText(text), 8, &counts);
    QCOMPARE(counts.conv2d, 2);
    int transforms = 0;
    for (const auto& n : postOrder(m.functions.front().body))
      if (n->kind == NodeKind::Call && n->name == "layout_transform") ++transforms;
    // %x, %r and %c in, the two weights, the (C, 1, 1) constant, the result out; %hw and
    // %p only gain a trailing axis (expand_dims).
    QCOMPARE(transforms, 7);
    checkSameOutputs(typedText(text), 8);
  }

  void densePacksItsWeight() {
    // The weight (48, 64) packed NC16n (16: the largest divisor of 48 up to twice the
    // 8 lanes), folded to a constant; a 3-D data operand; the result stays plain.
    const char* text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3, 64), float32]) {
  %0 = nn.dense(%x, meta[relay.Constant][0], units=48);
  %1 = add(%0, meta[relay.Constant][1] /* ty=Tensor[(48), float32] */);
  nn.dense(%1, meta[relay.Constant][2], units=7)
}
)";
    AlterLayoutCounts counts;
    Module m = altered(typedText(text), 8, &counts);
    QCOMPARE(counts.dense, 2); // 7 units: NC7n
    std::vector<std::string> layouts;
    for (const auto& n : postOrder(m.functions.front().body))
      if (n->kind == NodeKind::Call && n->name == "nn.contrib_dense_pack") {
        layouts.push_back(n->attr("weight_layout")->value.s);
        QCOMPARE(n->args[1]->type.shape.size(), std::size_t(3));
      }
    QCOMPARE(layouts, (std::vector<std::string>{"NC16n", "NC7n"}));
    QCOMPARE(m.functions.front().body->type.shape, (std::vector<std::int64_t>{2, 3, 7}));
    checkSameOutputs(typedText(text), 8);
  }

  void batchMatmulBecomesNN() {
    // NT (TVM's default) becomes NN on the second operand transposed; NN and TN stay.
    const char* text = R"(#[version = "0.0.5"]
def @main(%a: Tensor[(3, 5, 4), float32], %b: Tensor[(3, 6, 4), float32], %c: Tensor[(3, 6, 2), float32]) {
  %0 = nn.batch_matmul(%a, %b);
  %1 = nn.batch_matmul(%0, %c, transpose_b=False);
  %2 = nn.batch_matmul(%0, %1, transpose_a=True, transpose_b=False);
  (%1, %2)
}
)";
    AlterLayoutCounts counts;
    Module m = altered(typedText(text), 8, &counts);
    QCOMPARE(counts.batchMatmul, 1);
    std::vector<std::string> ops;
    for (const auto& n : postOrder(m.functions.front().body))
      if (n->kind == NodeKind::Call) {
        CallAttrs attrs(*n, n->op->attrs);
        ops.push_back(n->name == "nn.batch_matmul"
                          ? fmt::format("{}{}", attrs.b("transpose_a") ? "T" : "N", attrs.b("transpose_b") ? "T" : "N")
                          : n->name);
      }
    QCOMPARE(ops, (std::vector<std::string>{"transpose", "NN", "NN", "TN"}));
    checkSameOutputs(typedText(text), 8);
  }

  void foldedRelayoutMatchesTheOp_data() {
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("src");
    QTest::addColumn<QString>("dst");
    QTest::newRow("NCHW to NCHW4c") << "2, 8, 3, 5"
                                    << "NCHW"
                                    << "NCHW4c";
    QTest::newRow("NCHW4c to NCHW2c") << "2, 2, 3, 5, 4"
                                      << "NCHW4c"
                                      << "NCHW2c";
    QTest::newRow("NCHW8c to NHWC") << "1, 2, 3, 5, 8"
                                    << "NCHW8c"
                                    << "NHWC";
    QTest::newRow("OIHW to OIHW2i4o") << "8, 6, 3, 3"
                                      << "OIHW"
                                      << "OIHW2i4o";
    QTest::newRow("NC to NC3n") << "9, 7"
                                << "NC"
                                << "NC3n";
  }
  void foldedRelayoutMatchesTheOp() {
    // FoldConstant copies a constant's layout_transform directly: the same values as the
    // op's compute through the interpreter. (The constant's shape comes from the full it
    // is added to.)
    QFETCH(QString, type);
    QFETCH(QString, src);
    QFETCH(QString, dst);
    std::string text = fmt::format(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1), float32]) {{
  %0 = add(meta[relay.Constant][0], full(0f, shape=[{}], dtype="float32"));
  (layout_transform(%0, src_layout="{}", dst_layout="{}"), %x)
}}
)",
                                   type.toStdString(), src.toStdString(), dst.toStdString());
    Module typed = typedText(text);
    auto inputs = randomInputs(typed.functions.front());
    auto interpreted = run(typed, inputs);
    auto folded = foldConstant(typed);
    QVERIFY(folded);
    const NodePtr& field = folded->functions.front().body->args[0];
    QCOMPARE(field->kind, NodeKind::Constant);
    const ir::NDArray& value = folded->constants[static_cast<std::size_t>(field->index)];
    QCOMPARE(value.shape(), interpreted[0].shape());
    QVERIFY(!ir::firstMismatch(value, interpreted[0], 0, 0));
    // relayout itself on the constant (plus 0): whichever path FoldConstant took.
    ir::NDArray direct(interpreted[0].shape(), interpreted[0].dtype());
    relayout(typed.constants[0], *parseLayout(src.toStdString()), *parseLayout(dst.toStdString()), direct);
    QVERIFY(!ir::firstMismatch(direct, interpreted[0], 0, 0));
  }

  void resnetAndMnistKeepTheirOutputs_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("lanes");
    QTest::newRow("mnist 16") << QStringLiteral("samples/relay/mnist.relay") << 16;
    QTest::newRow("mnist 8") << QStringLiteral("samples/relay/mnist.relay") << 8;
    QTest::newRow("resnet18 w8 16") << QStringLiteral("tests/relay/data/resnet18_w8_64.relay") << 16;
    QTest::newRow("two functions 4") << QStringLiteral("samples/relay/two_functions.relay") << 4;
    QTest::newRow("bert s8 h32 16") << QStringLiteral("tests/relay/data/bert_s8_h32.relay") << 16;
  }
  void resnetAndMnistKeepTheirOutputs() {
    QFETCH(QString, path);
    QFETCH(int, lanes);
    checkSameOutputs(typedFile(path), lanes);
  }

  void resnetGroups() {
    // With the layout pass, TVM's FuseOps sees the same chains with the ops renamed: the
    // input's batch norm absorbs the first layout_transform (injective after broadcast),
    // the stem conv group is nn_contrib_conv2d_NCHWc_multiply_add_nn_relu, and the head
    // leaves NCHW16c before batch_flatten: layout_transform + batch_flatten are one
    // injective group.
    PassOptions with;
    with.alterLayout = true;
    with.lanes = 16;
    auto m = runPasses(typedFile(QStringLiteral("tests/relay/data/resnet18_w8_64.relay")), {}, with);
    QVERIFY(m);
    QStringList names;
    for (const auto& g : fuseOps(m->functions.front()).groups)
      if (g.hasCall()) names << QString::fromStdString(g.name).remove(QStringLiteral("tvmgen_default_fused_"));
    QCOMPARE(names.size(), 31);
    QCOMPARE(names.mid(0, 6),
             (QStringList{"multiply_add_layout_transform", "nn_contrib_conv2d_NCHWc_multiply_add_nn_relu",
                          "nn_max_pool2d_multiply_add_nn_relu", "nn_contrib_conv2d_NCHWc_multiply_add_nn_relu_1",
                          "nn_contrib_conv2d_NCHWc", "nn_contrib_conv2d_NCHWc_add"}));
    QCOMPARE(names.mid(27), (QStringList{"nn_global_avg_pool2d", "layout_transform_nn_batch_flatten",
                                         "nn_contrib_dense_pack_nn_bias_add", "nn_softmax"}));
  }

  void contribConvErrors_data() {
    QTest::addColumn<QString>("call");
    QTest::addColumn<QString>("message");
    QTest::newRow("data layout")
        << R"(nn.contrib_conv2d_NCHWc(%x, %w, data_layout="NCHW", kernel_layout="OIHW4i8o", out_layout="NCHW8c"))"
        << R"(nn.contrib_conv2d_NCHWc needs data_layout NCHW[x]c, got "NCHW")";
    QTest::newRow("kernel mismatch")
        << R"(nn.contrib_conv2d_NCHWc(%x, %w, data_layout="NCHW4c", kernel_layout="OIHW8i8o", out_layout="NCHW8c"))"
        << R"(kernel_layout "OIHW8i8o" of nn.contrib_conv2d_NCHWc does not match data_layout "NCHW4c" and out_layout "NCHW8c")";
    QTest::newRow("data shape")
        << R"(nn.contrib_conv2d_NCHWc(%x, %w, data_layout="NCHW2c", kernel_layout="OIHW2i8o", out_layout="NCHW8c"))"
        << R"(nn.contrib_conv2d_NCHWc: the data (1, 2, 5, 5, 4) does not match data_layout "NCHW2c")";
    QTest::newRow("weight shape")
        << R"(nn.contrib_conv2d_NCHWc(%x, %w, data_layout="NCHW4c", kernel_layout="OIHW4i4o", out_layout="NCHW4c"))"
        << R"(nn.contrib_conv2d_NCHWc: the weight (2, 2, 3, 3, 4, 8) does not match the data (1, 2, 5, 5, 4) in layout "OIHW4i4o")";
    QTest::newRow("pool layout")
        << R"(nn.max_pool2d(%x, layout="NCHW4h"))"
        << R"(layout of nn.max_pool2d must be "NCHW", "NHWC" or a blocked layout such as "NCHW16c", got "NCHW4h")";
    QTest::newRow("pool rank")
        << R"(nn.max_pool2d(%x, layout="NCHW"))"
        << R"(the data of nn.max_pool2d must be 4-D for layout "NCHW", got shape (1, 2, 5, 5, 4))";
    QTest::newRow("pool block")
        << R"(nn.max_pool2d(%x, layout="NCHW8c"))"
        << R"(the data (1, 2, 5, 5, 4) of nn.max_pool2d does not match layout "NCHW8c" (axis 4 is 4, not 8))";
  }
  void contribConvErrors() {
    QFETCH(QString, call);
    QFETCH(QString, message);
    std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 2, 5, 5, 4), float32], %w: Tensor[(2, 2, 3, "
                       "3, 4, 8), float32]) {\n  " +
                       call.toStdString() + "\n}\n";
    auto parsed = parseRelay(text, "e.relay");
    QVERIFY(parsed);
    auto typed = inferTypes(*parsed);
    QVERIFY(!typed);
    QCOMPARE(QString::fromStdString(typed.error().message), message);
    QCOMPARE(typed.error().location.line, 3);
  }

  void contribConvMatchesNchw() {
    // The op written by hand (as TVM prints it after AlterOpLayout) computes the NCHW
    // convolution: stride 2, dilation 2, asymmetric padding.
    const char* nchw = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 6, 9, 9), float32]) {
  nn.conv2d(%x, meta[relay.Constant][0], strides=[2, 2], dilation=[2, 2], padding=[1, 2, 0, 1], channels=4, kernel_size=[3, 2])
}
)";
    checkSameOutputs(typedText(nchw), 2);
  }
};

QTEST_APPLESS_MAIN(TstRelayAlterLayout)
#include "tst_alter_layout.moc"
