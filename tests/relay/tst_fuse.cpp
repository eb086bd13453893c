// Graph passes and FuseOps: the fused groups (and their TVM names) that TVM 0.18's
// FuseOps algorithm forms on the samples, derived by hand from the algorithm (the
// reasoning is written beside each list); the maximum fuse depth; SimplifyInference and
// FoldConstant give the outputs of the graph without folding; a fused run equals an
// unfused one (every op alone, max depth 1) on a width-reduced ResNet-18.
//
// Regenerate tests/relay/data/resnet18_w8_64.relay and bert_s8_h32.relay with
//   python3 samples/relay/gen_resnet18.py --width 8 --image 64 --classes 10
//   python3 samples/relay/gen_bert_proxy.py --seq 8 --hidden 32 --heads 2 --layers 1
#include "core/frontend/relay/relay_exec.h"
#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_passes.h"
#include "core/frontend/relay/relay_te_printer.h"
#include "core/frontend/relay/relay_type_infer.h"
#include "core/frontend/te_frontend.h"
#include "core/ir/structural_equal.h"

#include <fmt/format.h>

#include <QFile>
#include <QtTest>

using namespace loopscape;
using namespace loopscape::frontend::relay;

namespace {

Module loadTyped(const QString& path) {
  QFile f(QStringLiteral(LS_SOURCE_DIR "/") + path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  std::string text = f.readAll().toStdString();
  auto m = parseRelay(text, path.toStdString());
  if (!m) qFatal("%s", renderDiagnostic(m.error(), text).c_str());
  auto t = inferTypes(*m);
  if (!t) qFatal("%s", renderDiagnostic(t.error(), text).c_str());
  if (auto r = materializeConstants(*t, "", 0); !r) qFatal("%s", renderDiagnostic(r.error()).c_str());
  return std::move(*t);
}

Module optimised(const Module& typed) {
  auto m = runPasses(typed);
  if (!m) qFatal("%s", renderDiagnostic(m.error()).c_str());
  return std::move(*m);
}

QStringList groupNames(const FusionResult& r) {
  QStringList names;
  for (const auto& g : r.groups)
    if (g.hasCall()) names << QString::fromStdString(g.name).remove(QStringLiteral("tvmgen_default_fused_"));
  return names;
}

std::vector<ir::NDArray> randomInputs(const Function& f) {
  std::vector<ir::NDArray> in;
  for (std::size_t k = 0; k < f.params.size(); ++k) {
    ir::NDArray a(f.params[k]->type.shape, f.params[k]->type.dtype);
    a.fillRandom(100 + k);
    in.push_back(a);
  }
  return in;
}

} // namespace

class TstRelayFuse : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void mnistGroups();
  void twoFunctionsGroups();
  void resnet18Groups();
  void commonSubexpressions();
  void foldedScalarConstant();
  void bertProxyGroups();
  void maxFuseDepth();
  void passesKeepOutputs();
  void fusedRunEqualsUnfused();
  void memoryPlanPoisoning_data();
  void memoryPlanPoisoning();
  void extractedTeReadsBack_data();
  void extractedTeReadsBack();
};

void TstRelayFuse::mnistGroups() {
  Module m = optimised(loadTyped(QStringLiteral("samples/relay/mnist.relay")));
  // * nn.pad is injective; its only consumer is conv2d (out-elemwise-fusable, 4 >
  //   injective), so phase 1's all-injective path check fails: pad stays alone.
  // * conv2d -> bias_add (broadcast; the edge is broadcast since the bias shape differs,
  //   but bias_add -> relu is elementwise): conv2d's immediate post-dominator is bias_add
  //   and the edge pattern from conv2d is elementwise (same shape), so phase 0 fuses
  //   conv2d into bias_add, then bias_add (now an out-elemwise-fusable group) into relu.
  //   relu's post-dominator max_pool2d is reached by an out-elemwise-fusable edge: stop.
  // * max_pool2d's post-dominator is the next pad, reached by an injective edge, not
  //   elementwise: max_pool2d stays alone. The same holds for the second stage.
  // * reshape is injective and feeds dense (4): alone.
  // * dense -> add (same shape: elementwise edge): fused.
  // Repeated names get _1 as TVM's GetUniqueName does.
  QCOMPARE(groupNames(fuseOps(m.functions[0])),
           (QStringList{"nn_pad", "nn_conv2d_nn_bias_add_nn_relu", "nn_max_pool2d", "nn_pad_1",
                        "nn_conv2d_nn_bias_add_nn_relu_1", "nn_max_pool2d_1", "reshape", "nn_dense_add"}));
}

void TstRelayFuse::twoFunctionsGroups() {
  Module m = optimised(loadTyped(QStringLiteral("samples/relay/two_functions.relay")));
  // After inlining @block and SimplifyInference, batch_norm is multiply(conv, scale) then
  // add(., shift) with scale and shift folded to constants of shape (4, 1, 1); the tuple
  // (%1, %0) and its projection .0 fold to %1.
  // * conv2d -> multiply -> add -> relu -> add(residual): every edge is elementwise
  //   (operands of the result's shape) and each op's only consumer is the next, so
  //   phase 0 fuses the whole chain into one out-elemwise-fusable group.
  // * global_avg_pool2d (4) reaches batch_flatten by an injective edge: alone.
  // * batch_flatten (injective) feeds dense (4): alone; dense feeds softmax (4) by an
  //   out-elemwise-fusable edge: alone; softmax is the result: alone.
  QCOMPARE(groupNames(fuseOps(m.functions[0])),
           (QStringList{"nn_conv2d_multiply_add_nn_relu_add", "nn_global_avg_pool2d", "nn_batch_flatten", "nn_dense",
                        "nn_softmax"}));
}

void TstRelayFuse::resnet18Groups() {
  Module m = optimised(loadTyped(QStringLiteral("samples/relay/resnet18.relay")));
  // Each batch norm becomes multiply + add by folded per-channel constants (no
  // FoldScaleAxis yet, so the multiply stays; TVM at opt_level 3 would fold it into the
  // conv weights and name the groups nn_conv2d_add_nn_relu).
  // * The data batch norm (multiply, add) feeds conv0 by an out-elemwise-fusable edge:
  //   phase 0 refuses (the path pattern is 4 > injective): "multiply_add".
  // * conv0 -> bn0 (multiply, add) -> relu, all elementwise edges: one group.
  // * max_pool2d (4) -> the first unit's bn1 multiply/add and relu: elementwise edges, and
  //   max_pool2d's output is used only there (the first unit's shortcut is a 1x1 conv of
  //   act1, not of the data), so the pool absorbs them: "nn_max_pool2d_multiply_add_nn_relu".
  // * In a unit: conv1 -> bn2 -> relu fuse ("nn_conv2d_multiply_add_nn_relu"). conv2 comes
  //   before the shortcut in post order, so conv2 fuses into the residual add first; the
  //   shortcut conv's path to that add then ends in an out-elemwise-fusable group, which
  //   phase 0 refuses for another conv: the shortcut is "nn_conv2d" alone, conv2 + add is
  //   "nn_conv2d_add" when the add's output also feeds the next unit's residual add
  //   (dim_match unit: two consumers, post-dominated through a conv), or
  //   "nn_conv2d_add_multiply_add_nn_relu" when it feeds only the next unit's bn1 (the next
  //   unit has a shortcut conv of act1). The second unit of a stage starts with
  //   "multiply_add_nn_relu" (bn1 + relu of the previous add, which has two consumers).
  // * The head: bn1 + relu fuse into the last conv2d_add group; global_avg_pool2d and
  //   batch_flatten alone (as in mnist); dense + bias_add (bias_add is broadcast, but its
  //   result has dense's shape, so the edge from dense is elementwise); softmax alone.
  QStringList expected = {"multiply_add",
                          "nn_conv2d_multiply_add_nn_relu",
                          "nn_max_pool2d_multiply_add_nn_relu",
                          "nn_conv2d_multiply_add_nn_relu_1",
                          "nn_conv2d",
                          "nn_conv2d_add",
                          "multiply_add_nn_relu",
                          "nn_conv2d_multiply_add_nn_relu_2",
                          "nn_conv2d_add_multiply_add_nn_relu"};
  for (int stage = 1; stage < 4; ++stage) {
    QString s = QString::number(stage);
    expected << "nn_conv2d_multiply_add_nn_relu_" + QString::number(2 * stage + 1) << "nn_conv2d_" + s
             << "nn_conv2d_add_" + s << "multiply_add_nn_relu_" + s
             << "nn_conv2d_multiply_add_nn_relu_" + QString::number(2 * stage + 2)
             << (stage < 3 ? "nn_conv2d_add_multiply_add_nn_relu_" + s : "nn_conv2d_add_multiply_add_nn_relu_3");
  }
  expected << "nn_global_avg_pool2d"
           << "nn_batch_flatten"
           << "nn_dense_nn_bias_add"
           << "nn_softmax";
  QCOMPARE(groupNames(fuseOps(m.functions[0])), expected);
}

void TstRelayFuse::commonSubexpressions() {
  // Two relus of %x and two identical dense calls become one each; the function then
  // reaches fewer nodes (dead code needs no pass: the graph is what the result reaches).
  const std::string text =
      "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]) {\n"
      "  %0 = nn.relu(%x);\n  %1 = nn.relu(%x);\n  %2 = nn.dense(%0, %w, units=3);\n"
      "  %3 = nn.dense(%1, %w, units=3);\n  %4 = nn.softmax(%2);\n  add(%2, %3)\n}\n";
  auto m = parseRelay(text, "cse.relay");
  QVERIFY(m);
  auto t = inferTypes(*m);
  QVERIFY(t);
  QCOMPARE(postOrder(t->functions[0].body).size(), std::size_t{7});
  Module cse = eliminateCommonSubexpr(*t);
  const NodePtr& add = cse.functions[0].body;
  QCOMPARE(postOrder(add).size(), std::size_t{5}); // %x, %w, relu, dense, add
  QVERIFY(add->args[0] == add->args[1]);
}

void TstRelayFuse::foldedScalarConstant() {
  // multiply(2f, 3f) folds to a 0-d meta constant; being a scalar of a simple dtype it is
  // elementwise and joins the add's group, where it is read as an input.
  const std::string text =
      "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3), float32]) {\n  %0 = multiply(2f, 3f);\n  add(%x, %0)\n}\n";
  auto parsed = parseRelay(text, "scalar.relay");
  QVERIFY(parsed);
  auto typed = inferTypes(*parsed);
  QVERIFY(typed);
  Module m = optimised(*typed);
  const Function& f = m.functions[0];
  FusionResult r = fuseOps(f);
  QCOMPARE(groupNames(r), QStringList{"add"});
  auto inputs = randomInputs(f);
  auto out = runFused(m, f, r, inputs);
  QVERIFY2(out, out ? "" : renderDiagnostic(out.error()).c_str());
  for (std::int64_t k = 0; k < 6; ++k)
    QCOMPARE((*out)[0].getDouble(k), static_cast<double>(static_cast<float>(inputs[0].getDouble(k) + 6.0)));
}

void TstRelayFuse::bertProxyGroups() {
  // One encoder layer (the small variant has the structure of each bert_proxy layer).
  // * reshape of %x: its consumers are the three Q/K/V denses and the residual add; the
  //   post-dominator is reached through out-elemwise-fusable denses: alone.
  // * dense -> bias_add (elementwise edge, bias_add's result has dense's shape): fused;
  //   the consumer reshape is injective, not elementwise: the group stops there.
  // * reshape -> transpose -> reshape: injective chain, fused in phase 1, stopping at
  //   batch_matmul (4).
  // * batch_matmul(Q, K) -> divide by a scalar (same shape: elementwise) -> softmax (4):
  //   "nn_batch_matmul_divide", then softmax alone.
  // * batch_matmul(P, V) -> reshape (injective edge): alone; the head merge
  //   reshape/transpose/reshape fuses; the output dense + bias + residual add fuse.
  // * layer norm, decomposed by SimplifyInference into mean, subtract, multiply, mean, add,
  //   sqrt, divide, multiply gamma, add beta: a reduction never fuses forward, so the first
  //   mean is alone; subtract's post-dominator (divide) is reached through the second mean
  //   (comm-reduce on the path, not <= injective): alone; multiply(c, c) fuses into the
  //   mean it feeds (sink comm-reduce allowed); add eps, sqrt, divide, scale and shift
  //   chain elementwise: "add_sqrt_divide_multiply_add".
  // * FFN: dense + bias_add + GELU (two scalar multiplies, erf, add 1, multiply: every
  //   path elementwise into the last multiply): one group; the second dense + bias +
  //   residual add; the final layer norm as above.
  Module m = optimised(loadTyped(QStringLiteral("tests/relay/data/bert_s8_h32.relay")));
  QCOMPARE(groupNames(fuseOps(m.functions[0])), (QStringList{"reshape",
                                                             "nn_dense_nn_bias_add",
                                                             "reshape_transpose_reshape",
                                                             "nn_dense_nn_bias_add_1",
                                                             "reshape_transpose_reshape_1",
                                                             "nn_batch_matmul_divide",
                                                             "nn_softmax",
                                                             "nn_dense_nn_bias_add_2",
                                                             "reshape_transpose_reshape_2",
                                                             "nn_batch_matmul",
                                                             "reshape_transpose_reshape_3",
                                                             "nn_dense_nn_bias_add_add",
                                                             "mean",
                                                             "subtract",
                                                             "multiply_mean",
                                                             "add_sqrt_divide_multiply_add",
                                                             "nn_dense_nn_bias_add_multiply_multiply_erf_add_multiply",
                                                             "nn_dense_nn_bias_add_add_1",
                                                             "mean_1",
                                                             "subtract_1",
                                                             "multiply_mean_1",
                                                             "add_sqrt_divide_multiply_add_1"}));
  const Function& f = m.functions[0];
  auto inputs = randomInputs(f);
  auto fused = runFused(m, f, fuseOps(f), inputs);
  QVERIFY2(fused, fused ? "" : renderDiagnostic(fused.error()).c_str());
  auto alone = runFused(m, f, fuseOps(f, 1), inputs);
  QVERIFY2(alone, alone ? "" : renderDiagnostic(alone.error()).c_str());
  QVERIFY(!ir::firstMismatch((*fused)[0], (*alone)[0], 1e-6, 1e-5));
}

void TstRelayFuse::maxFuseDepth() {
  std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n";
  for (int k = 0; k < 10; ++k)
    text += fmt::format("  %{} = nn.relu({});\n", k, k ? fmt::format("%{}", k - 1) : "%x");
  text += "  %9\n}\n";
  auto m = parseRelay(text, "chain.relay");
  QVERIFY(m);
  auto t = inferTypes(*m);
  QVERIFY(t);
  // A chain of 10 relus with max depth 4: relu0 joins relu1 (1 + 1 nodes), that group
  // joins relu2 (3), then relu3 (4); relu4 would make 5 > 4, so a new group starts there:
  // groups of 4, 4 and 2 ops, as graph_partitioner's CountFusedNodesWithNewChild counts.
  FusionResult r = fuseOps(t->functions[0], 4);
  QCOMPARE(r.groups.size(), std::size_t{3});
  QCOMPARE(r.groups[0].nodes.size(), std::size_t{4});
  QCOMPARE(r.groups[1].nodes.size(), std::size_t{4});
  QCOMPARE(r.groups[2].nodes.size(), std::size_t{2});
  // With TVM's default depth (256) the chain is one group; its name "fused" + 10 x
  // "_nn_relu" has 85 characters, so it is cut at 80 and suffixed with a hash.
  FusionResult whole = fuseOps(t->functions[0]);
  QCOMPARE(whole.groups.size(), std::size_t{1});
  std::string readable = "fused";
  for (int k = 0; k < 10; ++k)
    readable += "_nn_relu";
  const std::string& name = whole.groups[0].name;
  QCOMPARE(QString::fromStdString(name.substr(0, name.size() - 16)),
           QString::fromStdString("tvmgen_default_" + readable.substr(0, 80) + "_"));
}

void TstRelayFuse::passesKeepOutputs() {
  // SimplifyInference alone (no folding, every op its own group) against the full
  // pipeline (SimplifyInference, FoldConstant, CSE, fusion): the same outputs.
  Module typed = loadTyped(QStringLiteral("samples/relay/two_functions.relay"));
  auto inlined = inlineGlobals(typed);
  QVERIFY(inlined);
  Module simple = simplifyInference(*inlined);
  simple.functions = {*simple.find("main")};
  auto simpleTyped = inferTypes(simple);
  QVERIFY2(simpleTyped, simpleTyped ? "" : renderDiagnostic(simpleTyped.error()).c_str());
  const Function& a = simpleTyped->functions[0];
  auto inputs = randomInputs(a);
  auto ref = runFused(*simpleTyped, a, fuseOps(a, 1), inputs);
  QVERIFY2(ref, ref ? "" : renderDiagnostic(ref.error()).c_str());
  Module full = optimised(typed);
  std::size_t before = postOrder(a.body).size(), after = postOrder(full.functions[0].body).size();
  QVERIFY2(after < before, "FoldConstant folds the batch-norm scale and shift");
  auto out = runFused(full, full.functions[0], fuseOps(full.functions[0]), inputs);
  QVERIFY2(out, out ? "" : renderDiagnostic(out.error()).c_str());
  QVERIFY(!ir::firstMismatch((*out)[0], (*ref)[0], 1e-6, 1e-5));
}

void TstRelayFuse::fusedRunEqualsUnfused() {
  Module m = optimised(loadTyped(QStringLiteral("tests/relay/data/resnet18_w8_64.relay")));
  const Function& f = m.functions[0];
  auto inputs = randomInputs(f);
  auto fused = runFused(m, f, fuseOps(f), inputs);
  QVERIFY2(fused, fused ? "" : renderDiagnostic(fused.error()).c_str());
  auto alone = runFused(m, f, fuseOps(f, 1), inputs);
  QVERIFY2(alone, alone ? "" : renderDiagnostic(alone.error()).c_str());
  QCOMPARE((*fused)[0].shape(), (std::vector<std::int64_t>{1, 10}));
  QVERIFY(!ir::firstMismatch((*fused)[0], (*alone)[0], 1e-6, 1e-5));
  double sum = 0;
  for (std::int64_t k = 0; k < 10; ++k)
    sum += (*fused)[0].getDouble(k);
  QVERIFY(std::abs(sum - 1.0) < 1e-5); // softmax
}

void TstRelayFuse::memoryPlanPoisoning_data() {
  QTest::addColumn<QString>("path");
  QTest::newRow("mnist") << QStringLiteral("samples/relay/mnist.relay");
  QTest::newRow("resnet18_w8_64") << QStringLiteral("tests/relay/data/resnet18_w8_64.relay");
  QTest::newRow("bert_s8_h32") << QStringLiteral("tests/relay/data/bert_s8_h32.relay");
}

void TstRelayFuse::memoryPlanPoisoning() {
  QFETCH(QString, path);
  Module m = optimised(loadTyped(path));
  const Function& f = m.functions[0];
  FusionResult fusion = fuseOps(f);
  MemoryPlan plan = planMemory(f, fusion);
  // No two tensors alive at the same step share storage; each storage holds its tensors.
  for (const auto& a : plan.tensors)
    for (const auto& b : plan.tensors) {
      if (&a == &b || a.storage < 0 || a.storage != b.storage) continue;
      bool overlap = a.defined <= b.lastUse && b.defined <= a.lastUse;
      QVERIFY2(!overlap, qPrintable(QStringLiteral("steps %1-%2 and %3-%4 share storage %5")
                                        .arg(a.defined)
                                        .arg(a.lastUse)
                                        .arg(b.defined)
                                        .arg(b.lastUse)
                                        .arg(a.storage)));
      QVERIFY(plan.storageBytes[static_cast<std::size_t>(a.storage)] >= a.bytes);
    }
  QVERIFY2(plan.plannedBytes < plan.naiveBytes, "storage is reused");
  // Running in the planned storage, poisoned as tensors die, gives the unplanned result.
  auto inputs = randomInputs(f);
  auto ref = runFused(m, f, fusion, inputs);
  QVERIFY2(ref, ref ? "" : renderDiagnostic(ref.error()).c_str());
  auto planned = runFused(m, f, fusion, inputs, &plan, true);
  QVERIFY2(planned, planned ? "" : renderDiagnostic(planned.error()).c_str());
  QVERIFY(!ir::firstMismatch((*planned)[0], (*ref)[0], 0, 0));
  // The check can fail: a plan that puts every tensor in one storage changes the result.
  MemoryPlan broken = plan;
  std::int64_t biggest = 0;
  for (auto& t : broken.tensors) {
    if (t.storage < 0) continue;
    t.storage = 0;
    biggest = std::max(biggest, t.bytes);
  }
  broken.storageBytes = {biggest};
  auto wrong = runFused(m, f, fusion, inputs, &broken, true);
  QVERIFY(wrong);
  QVERIFY(ir::firstMismatch((*wrong)[0], (*ref)[0], 1e-6, 1e-5).has_value());
}

void TstRelayFuse::extractedTeReadsBack_data() {
  QTest::addColumn<QString>("path");
  QTest::newRow("mnist") << QStringLiteral("samples/relay/mnist.relay");
  QTest::newRow("two_functions") << QStringLiteral("samples/relay/two_functions.relay");
  QTest::newRow("resnet18_w8_64") << QStringLiteral("tests/relay/data/resnet18_w8_64.relay");
  QTest::newRow("bert_s8_h32") << QStringLiteral("tests/relay/data/bert_s8_h32.relay");
}

void TstRelayFuse::extractedTeReadsBack() {
  // Every group written as .te parses back (te front end) into its PrimFunc.
  QFETCH(QString, path);
  Module m = optimised(loadTyped(path));
  for (const auto& g : fuseOps(m.functions[0]).groups) {
    if (!g.hasCall()) continue;
    auto func = lowerGroup(g);
    QVERIFY2(func, func ? "" : renderDiagnostic(func.error()).c_str());
    auto program = groupProgram(g);
    QVERIFY(program);
    std::string te = printTeProgram(*program, g.name);
    auto back = frontend::parseTe(te, g.name + ".te");
    QVERIFY2(back, back ? "" : renderDiagnostic(back.error(), te).c_str());
    back->name = func->name;
    QVERIFY2(ir::structuralEqual(*back, *func), g.name.c_str());
  }
}

QTEST_GUILESS_MAIN(TstRelayFuse)
#include "tst_fuse.moc"
