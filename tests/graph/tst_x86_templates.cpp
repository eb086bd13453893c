// The default schedules of conv2d_NCHWc and dense_pack groups (core/graph/x86_templates.h):
// TOPI's x86 templates as exact traces, reg_n bounded by the vector registers, chosen for
// every convolution and dense group of a model after AlterOpLayout, and the width-reduced
// ResNet-18 and BERT proxy compiled through cpu-llvm equal to the interpreter (whole model
// and group by group).
#include "core/graph/compiled_model.h"
#include "core/graph/x86_templates.h"
#include "model_test_helpers.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace loopscape;
using namespace loopscape::graph;

namespace {

ModelLoadOptions blocked16() {
  ModelLoadOptions o;
  o.passes.alterLayout = true;
  o.passes.lanes = 16; // the same groups on every host
  return o;
}

const ModelGroup& named(const Model& m, const char* name) {
  const ModelGroup* g = m.group(name);
  if (!g) qFatal("no group %s", name);
  return *g;
}

} // namespace

class TstX86Templates : public QObject {
  Q_OBJECT

  QTemporaryDir m_cache;

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_cache.isValid());
    graphtest::useBuildTree();
  }

  void templateTrace() {
    Model m = graphtest::load("tests/relay/data/resnet18_w8_64.relay", blocked16());
    // The first unit's conv1: 16 x 16 pixels, 8 channels in one block of 8, an elementwise
    // tail (batch norm multiply/add, relu). 16 columns fit 30 registers.
    const ModelGroup& g = named(m, "tvmgen_default_fused_nn_contrib_conv2d_NCHWc_multiply_add_nn_relu_1");
    auto script = nchwcScheduleScript(g, 32);
    QVERIFY(script);
    QCOMPARE(QString::fromStdString(*script), QStringLiteral(R"(def apply_trace(sch):
    pad = sch.get_block("data_pad")
    p0, p1, p2, p3, p4 = sch.get_loops(pad)
    sch.parallel(sch.fuse(p0, p1, p2))
    conv = sch.get_block("conv2d_NCHWc")
    sch.compute_inline(sch.get_block("T_multiply"))
    sch.compute_inline(sch.get_block("T_add"))
    out = sch.get_block("T_relu")
    b, c, h, w, cb = sch.get_loops(out)
    w_chunk, w_block = sch.split(w, factors=[None, 16])
    sch.reorder(w_chunk, w_block, cb)
    sch.parallel(sch.fuse(b, c, h))
    sch.vectorize(cb)
    sch.compute_at(conv, w_chunk)
    fused, w_chunk_, ow_block, oc_block, kh, kw, ic_inner = sch.get_loops(conv)
    sch.reorder(kh, kw, ic_inner, ow_block, oc_block)
    sch.unroll(ow_block)
    sch.vectorize(oc_block)
    sch.decompose_reduction(conv, kh)
)"));
    // 16 registers (AVX2): at most 14 columns, so 8 (the largest divisor of 16).
    QVERIFY(nchwcScheduleScript(g, 16)->find("factors=[None, 8]") != std::string::npos);
    // A 1x1 convolution alone (the shortcut): no compute_at, the reduction reordered.
    const ModelGroup& shortcut = named(m, "tvmgen_default_fused_nn_contrib_conv2d_NCHWc");
    auto alone = nchwcScheduleScript(shortcut, 32);
    QVERIFY(alone);
    QVERIFY2(alone->find("sch.reorder(ow_chunk, ic_outer, kh, kw, ic_inner, ow_block, oc_block)") != std::string::npos,
             alone->c_str());
    // Groups without a conv2d_NCHWc have none.
    QVERIFY(!nchwcScheduleScript(named(m, "tvmgen_default_fused_nn_contrib_dense_pack_nn_bias_add"), 32));
  }

  void densePackTrace() {
    // The BERT proxy's QKV dense (8 x 32 rows x features, packed NC32n): rows in chunks of
    // 8, one 32-wide vector, the bias add inlined into the output block.
    Model bert = graphtest::load("tests/relay/data/bert_s8_h32.relay", blocked16());
    auto script = densePackScheduleScript(named(bert, "tvmgen_default_fused_nn_contrib_dense_pack_nn_bias_add"));
    QVERIFY(script);
    QCOMPARE(QString::fromStdString(*script), QStringLiteral(R"(def apply_trace(sch):
    mm = sch.get_block("T_dense_pack")
    out = sch.get_block("T_add")
    y0, x = sch.get_loops(out)
    y = y0
    y_chunk, y_block = sch.split(y, factors=[None, 8])
    x_chunk, x_block = sch.split(x, factors=[None, 32])
    sch.reorder(y_chunk, x_chunk, y_block, x_block)
    tile = sch.fuse(y_chunk, x_chunk)
    sch.parallel(tile)
    sch.vectorize(x_block)
    sch.compute_at(mm, tile)
    tile, y_block, x_block, k = sch.get_loops(mm)
    sch.reorder(k, y_block, x_block)
    sch.unroll(y_block)
    sch.vectorize(x_block)
    sch.decompose_reduction(mm, k)
)"));
    // ResNet's classifier: one row, so no row block (compute_at makes no unit loop).
    Model resnet = graphtest::load("tests/relay/data/resnet18_w8_64.relay", blocked16());
    auto one = x86TemplateScript(named(resnet, "tvmgen_default_fused_nn_contrib_dense_pack_nn_bias_add"), 32, 16);
    QVERIFY(one);
    QCOMPARE(QString::fromStdString(one->name), QStringLiteral("dense_pack"));
    QVERIFY2(one->script.find("tile, x_block, k = sch.get_loops(mm)") != std::string::npos, one->script.c_str());
    QVERIFY(one->script.find("unroll") == std::string::npos);
    // The attention scores (2 heads x 8 x 8, NN after the pass): the head loop fused into
    // the parallel tile, columns in one block of 8.
    auto scores = batchMatmulScheduleScript(named(bert, "tvmgen_default_fused_nn_batch_matmul_divide"), 16);
    QVERIFY(scores);
    QVERIFY2(scores->find("tile = sch.fuse(b0, y_chunk, x_chunk)") != std::string::npos, scores->c_str());
    QVERIFY2(scores->find("x_chunk, x_block = sch.split(x, factors=[None, 8])") != std::string::npos, scores->c_str());
  }

  void everyConvolutionTakesTheTemplate() {
    // Compiled once here; the next test finds the schedules and kernels in the cache.
    Model m = graphtest::load("tests/relay/data/resnet18_w8_64.relay", blocked16());
    auto compiled = compileModel(m, ModelSchedule{}, graphtest::compileOptions("cpu-llvm", m_cache.path()));
    QVERIFY2(compiled, compiled ? "" : compiled.error().message.c_str());
    int convs = 0;
    for (const auto& cg : compiled->groups) {
      if (m.groups[cg.group].ops.find("nn.contrib_conv2d_NCHWc") == std::string::npos) continue;
      ++convs;
      QCOMPARE(QString::fromStdString(cg.scheduled.source), QStringLiteral("default (conv2d_NCHWc template)"));
    }
    QCOMPARE(convs, 21); // the stem, 16 in the units, a 1x1 shortcut at the start of each stage
  }

  void compiledModelMatchesTheInterpreter() {
    graphtest::runAndCheck("tests/relay/data/resnet18_w8_64.relay", "cpu-llvm", "default", m_cache.path(), 2e5, true,
                           blocked16());
  }

  void compiledBertMatchesTheInterpreter() {
    Model m = graphtest::load("tests/relay/data/bert_s8_h32.relay", blocked16());
    auto compiled = compileModel(m, ModelSchedule{}, graphtest::compileOptions("cpu-llvm", m_cache.path()));
    QVERIFY2(compiled, compiled ? "" : compiled.error().message.c_str());
    int dense = 0, bmm = 0;
    for (const auto& cg : compiled->groups) {
      const std::string& ops = m.groups[cg.group].ops;
      if (ops.find("nn.contrib_dense_pack") != std::string::npos) {
        ++dense;
        QCOMPARE(QString::fromStdString(cg.scheduled.source), QStringLiteral("default (dense_pack template)"));
      } else if (ops.find("nn.batch_matmul") != std::string::npos) {
        ++bmm;
        QCOMPARE(QString::fromStdString(cg.scheduled.source), QStringLiteral("default (batch_matmul template)"));
      }
    }
    QCOMPARE(dense, 6); // Q, K, V, the output projection and the two FFN layers
    QCOMPARE(bmm, 2);   // the scores and the weighted values
    graphtest::runAndCheck("tests/relay/data/bert_s8_h32.relay", "cpu-llvm", "default", m_cache.path(), 5e7, true,
                           blocked16());
  }
};

QTEST_MAIN(TstX86Templates)
#include "tst_x86_templates.moc"
