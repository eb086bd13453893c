// Differential test of the whole schedule: a seeded generator applies random sequences of
// primitives with random arguments to small copies of every sample program. Refused
// primitives are skipped (and counted); after each sequence the interpreter's results
// must equal the original program's bit for bit (within 1e-5 for the float programs,
// whose reductions may legally be reassociated by reorder/split), and replaying the trace on a fresh
// schedule must give a structurally equal program.
//
// LS_DIFF_SEED=<unsigned> and LS_DIFF_SEQUENCES=<count> choose another seed and count (the
// defaults, 20240611 and 500, are what CTest runs).
//
// With LS_DIFF_KEEP_GOING=1 the test logs every failing sequence (the steps applied and
// the first difference) instead of stopping at the first one; LS_DIFF_TRACE=1 adds the
// trace of each failing sequence as TVM Python (replayable with applyScript) and the program.
//
// The generator is a table of (primitive, argument generator) rows: a new primitive joins
// by adding a row. Every row must succeed at least once over the run.
#include "schedule_test_helpers.h"

#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/printer.h"
#include "core/ir/visitor.h"
#include "core/ir/structural_equal.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_error.h"
#include "core/schedule/trace_python.h"

#include <QtTest>

#include <fmt/format.h>

#include <functional>
#include <set>
#include <map>
#include <random>

using namespace loopscape;
using schedule::LoopMark;
using schedule::RV;
using schedule::Schedule;
using schedule::TraceList;
using schedule::TraceValue;

namespace {

struct Program {
  const char* name;
  const char* source;
  std::map<std::string, std::int64_t> sizes;
  bool exactReductions; ///< integer reductions: reassociation (rfactor) stays bit-exact
};

// Small-shape copies of samples/*.te. Integer types where the sample only multiplies and
// adds, so that every legal schedule, rfactor included, is bit-exact.
const Program kPrograms[] = {
    {"matmul",
     "A = placeholder((8, 12), \"int32\", name=\"A\")\nB = placeholder((12, 16), \"int32\", name=\"B\")\n"
     "k = reduce_axis((0, 12), name=\"k\")\n"
     "C = compute((8, 16), lambda i, j: sum(A[i, k] * B[k, j], axis=k), name=\"C\")\n",
     {},
     true},
    {"conv2d",
     "data = placeholder((1, 2, 6, 6), \"int32\", name=\"data\")\n"
     "weight = placeholder((4, 2, 3, 3), \"int32\", name=\"weight\")\n"
     "pad_temp = compute((1, 2, 8, 8), lambda i0, i1, i2, i3: if_then_else(all(i2 >= 1, i2 < 7, i3 >= 1, i3 < 7), "
     "data[i0, i1, i2 - 1, i3 - 1], 0), name=\"pad_temp\")\n"
     "rc = reduce_axis((0, 2), name=\"rc\")\nry = reduce_axis((0, 3), name=\"ry\")\n"
     "rx = reduce_axis((0, 3), name=\"rx\")\n"
     "conv = compute((1, 4, 6, 6), lambda nn, ff, yy, xx: sum(pad_temp[nn, rc, yy + ry, xx + rx] * "
     "weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name=\"conv2d_nchw\")\n",
     {},
     true},
    {"depthwise_conv2d",
     "data = placeholder((1, 3, 8, 8), \"int32\", name=\"data\")\n"
     "kernel = placeholder((3, 1, 3, 3), \"int32\", name=\"kernel\")\n"
     "di = reduce_axis((0, 3), name=\"di\")\ndj = reduce_axis((0, 3), name=\"dj\")\n"
     "out = compute((1, 3, 6, 6), lambda b, c, i, j: sum(data[b, c, i + di, j + dj] * kernel[c, 0, di, dj], "
     "axis=[di, dj]), name=\"DepthwiseConv2d\")\n",
     {},
     true},
    {"softmax",
     "X = placeholder((4, 8), name=\"X\")\nk1 = reduce_axis((0, 8), name=\"k1\")\n"
     "k2 = reduce_axis((0, 8), name=\"k2\")\n"
     "maxelem = compute((4,), lambda i: max(X[i, k1], axis=k1), name=\"T_softmax_maxelem\")\n"
     "expv = compute((4, 8), lambda i, j: exp(X[i, j] - maxelem[i]), name=\"T_softmax_exp\")\n"
     "expsum = compute((4,), lambda i: sum(expv[i, k2], axis=k2), name=\"T_softmax_expsum\")\n"
     "norm = compute((4, 8), lambda i, j: expv[i, j] / expsum[i], name=\"T_softmax_norm\")\n",
     {},
     false},
    {"layernorm",
     "data = placeholder((4, 8), name=\"data\")\ngamma = placeholder((8,), name=\"gamma\")\n"
     "beta = placeholder((8,), name=\"beta\")\nk = reduce_axis((0, 8), name=\"k\")\n"
     "mean = compute((4,), lambda i: sum(data[i, k] / 8, axis=k), name=\"T_mean\")\n"
     "kv = reduce_axis((0, 8), name=\"kv\")\n"
     "var = compute((4,), lambda i: sum((data[i, kv] - mean[i]) * (data[i, kv] - mean[i]) / 8, axis=kv), "
     "name=\"T_var\")\n"
     "out = compute((4, 8), lambda i, j: (data[i, j] - mean[i]) * rsqrt(var[i] + 1e-5) * gamma[j] + beta[j], "
     "name=\"T_layer_norm\")\n",
     {},
     false},
    {"batch_matmul",
     "A = placeholder((2, 4, 6), \"int32\", name=\"A\")\nB = placeholder((2, 6, 8), \"int32\", name=\"B\")\n"
     "k = reduce_axis((0, 6), name=\"k\")\n"
     "C = compute((2, 4, 8), lambda b, i, j: sum(A[b, i, k] * B[b, k, j], axis=k), name=\"T_batch_matmul_NN\")\n",
     {},
     true},
    {"conv_bias_relu",
     "data = placeholder((1, 2, 6, 6), \"int32\", name=\"data\")\n"
     "weight = placeholder((3, 2, 3, 3), \"int32\", name=\"weight\")\n"
     "bias = placeholder((3,), \"int32\", name=\"bias\")\n"
     "pad_temp = compute((1, 2, 8, 8), lambda i0, i1, i2, i3: if_then_else(all(i2 >= 1, i2 < 7, i3 >= 1, i3 < 7), "
     "data[i0, i1, i2 - 1, i3 - 1], 0), name=\"pad_temp\")\n"
     "rc = reduce_axis((0, 2), name=\"rc\")\nry = reduce_axis((0, 3), name=\"ry\")\n"
     "rx = reduce_axis((0, 3), name=\"rx\")\n"
     "conv = compute((1, 3, 6, 6), lambda nn, ff, yy, xx: sum(pad_temp[nn, rc, yy + ry, xx + rx] * "
     "weight[ff, rc, ry, rx], axis=[rc, ry, rx]), name=\"conv2d_nchw\")\n"
     "biased = compute((1, 3, 6, 6), lambda n, f, y, x: conv[n, f, y, x] + bias[f], name=\"T_add\")\n"
     "relu = compute((1, 3, 6, 6), lambda n, f, y, x: max(biased[n, f, y, x], 0), name=\"T_relu\")\n",
     {},
     true},
    {"dense_dynamic",
     "n = var(\"n\")\ndata = placeholder((n, 8), \"int32\", name=\"data\")\n"
     "weight = placeholder((6, 8), \"int32\", name=\"weight\")\nk = reduce_axis((0, 8), name=\"k\")\n"
     "T_matmul_NT = compute((n, 6), lambda i, j: sum(data[i, k] * weight[j, k], axis=k), name=\"T_matmul_NT\")\n",
     {{"n", 5}},
     true},
};

/// State handed to the argument generators: the schedule, the engine, the program.
struct Gen {
  Schedule& sch;
  std::mt19937_64& rng;
  const Program& program;

  std::int64_t pick(std::int64_t n) { return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)); }
  template <typename T> const T& pickOf(const std::vector<T>& v) { return v[static_cast<std::size_t>(pick(v.size()))]; }

  /// A random block (through get_block, so the trace replays).
  std::optional<RV> block() {
    const auto& blocks = sch.tree().blocks();
    if (blocks.empty()) return std::nullopt;
    auto rv = sch.apply("get_block", {}, {pickOf(blocks)->block()->name});
    return rv ? std::optional<RV>((*rv)[0]) : std::nullopt;
  }
  std::vector<RV> loops(const RV& b) {
    auto rv = sch.apply("get_loops", {b});
    return rv ? *rv : std::vector<RV>{};
  }
  /// A random loop of a random block, and that block.
  std::optional<std::pair<RV, RV>> loop() {
    auto b = block();
    if (!b) return std::nullopt;
    auto ls = loops(*b);
    if (ls.empty()) return std::nullopt;
    return std::make_pair(*b, pickOf(ls));
  }
  const ir::Block& blockOf(const RV& b) { return *(*sch.block(b, "gen"))->block(); }
  bool isParam(const ir::Buffer& buf) {
    for (const auto& p : sch.func().params)
      if (p.sameAs(buf)) return true;
    return false;
  }
};

/// Interpreter results of `a` and `b` on the same seeded inputs, equal within 1e-5
/// (absolute and relative): for float programs, where reordering or splitting reduction
/// loops legally changes the order of the additions. Empty when they agree.
std::string compareClose(const ir::PrimFunc& a, const ir::PrimFunc& b, const std::map<std::string, std::int64_t>& sizes) {
  struct Written final : ir::StmtVisitor {
    std::set<const ir::BufferNode*> out;
    void visitBufferStore(const ir::BufferStore& op, const ir::Stmt& self) override {
      out.insert(op.buffer.get());
      StmtVisitor::visitBufferStore(op, self);
    }
  };
  std::vector<ir::NDArray> results[2];
  for (int k = 0; k < 2; ++k) {
    const ir::PrimFunc& f = k == 0 ? a : b;
    Written w;
    w(f.body);
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      auto shape = ir::evalShape(f.params[i], sizes);
      if (!shape) return renderDiagnostic(shape.error());
      ir::NDArray x(*shape, f.params[i]->dtype);
      if (!w.out.contains(f.params[i].get())) x.fillRandom(100 + i);
      results[k].push_back(x);
    }
    if (auto ok = ir::interpret(f, results[k], sizes); !ok)
      return (k == 0 ? "original program failed: " : "scheduled program failed: ") + renderDiagnostic(ok.error());
  }
  for (std::size_t i = 0; i < results[0].size(); ++i)
    if (auto m = ir::firstMismatch(results[1][i], results[0][i], 1e-5, 1e-5))
      return fmt::format("parameter {} ({}) differs at flat index {}: {} vs {}", i, a.params[i]->name, m->index,
                         m->actual, m->expected);
  return {};
}

using Outcome = Expected<std::vector<RV>>;
Outcome notApplicable() { return Unexpected(Diagnostic::error("gen.not-applicable", "no arguments")); }

struct Row {
  const char* primitive;
  std::function<Outcome(Gen&)> apply;
};

const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      {"split",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         if (!l) return notApplicable();
         const std::int64_t f = 2 + g.pick(3);
         return g.sch.apply("split", {l->second, g.pick(2) ? TraceList{nullptr, f} : TraceList{f, nullptr}});
       }},
      {"fuse",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b) return notApplicable();
         auto ls = g.loops(*b);
         if (ls.size() < 2) return notApplicable();
         const auto k = static_cast<std::size_t>(g.pick(ls.size() - 1));
         return g.sch.apply("fuse", {ls[k], ls[k + 1]});
       }},
      {"reorder",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b) return notApplicable();
         auto ls = g.loops(*b);
         if (ls.size() < 2) return notApplicable();
         auto x = g.pickOf(ls), y = g.pickOf(ls);
         return g.sch.apply("reorder", {x, y});
       }},
      {"parallel",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         return l ? g.sch.apply("parallel", {l->second}) : notApplicable();
       }},
      {"vectorize",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         return l ? g.sch.apply("vectorize", {l->second}) : notApplicable();
       }},
      {"unroll",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         return l ? g.sch.apply("unroll", {l->second}) : notApplicable();
       }},
      {"bind",
       [](Gen& g) -> Outcome {
         static const std::vector<std::string> axes{"blockIdx.x", "threadIdx.x", "threadIdx.y", "vthread.x"};
         auto l = g.loop();
         return l ? g.sch.apply("bind", {l->second}, {g.pickOf(axes)}) : notApplicable();
       }},
      {"annotate",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         if (!l) return notApplicable();
         TraceValue target = g.pick(2) ? l->first : l->second;
         return g.sch.apply("annotate", {target, g.pick(8)}, {"k"});
       }},
      {"unannotate",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         if (!l) return notApplicable();
         TraceValue target = g.pick(2) ? l->first : l->second;
         if (auto ok = g.sch.apply("annotate", {target, 1}, {"k"}); !ok) return ok;
         return g.sch.apply("unannotate", {target}, {"k"});
       }},
      {"add_unit_loop",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         if (!l) return notApplicable();
         return g.sch.apply("add_unit_loop", {g.pick(2) ? l->first : l->second});
       }},
      {"loop_partition",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         if (!l) return notApplicable();
         const std::int64_t f = 1 + g.pick(3);
         return g.sch.apply("loop_partition", {l->second, g.pick(2) ? TraceList{nullptr, f} : TraceList{f}});
       }},
      {"sample_perfect_tile",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         if (!l) return notApplicable();
         auto v = g.sch.apply("sample_perfect_tile", {l->second}, {2, 4});
         if (!v) return v;
         return g.sch.apply("split", {l->second, TraceList{(*v)[0], (*v)[1]}});
       }},
      {"sample_categorical",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         if (!l) return notApplicable();
         auto v = g.sch.apply("sample_categorical", {}, {TraceList{2, 3, 4}, TraceList{0.5, 0.25, 0.25}});
         if (!v) return v;
         return g.sch.apply("split", {l->second, TraceList{nullptr, (*v)[0]}});
       }},
      {"sample_compute_location",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b) return notApplicable();
         auto l = g.sch.apply("sample_compute_location", {*b});
         if (!l) return l;
         switch (g.sch.loopMark((*l)[0])) {
         case LoopMark::Root: return l;
         case LoopMark::Inline: return g.sch.apply("compute_inline", {*b});
         case LoopMark::None: break;
         }
         return g.sch.apply("compute_at", {*b, (*l)[0]});
       }},
      {"compute_at",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         auto l = g.loop();
         return b && l ? g.sch.apply("compute_at", {*b, l->second}, {g.pick(2) == 1}) : notApplicable();
       }},
      {"reverse_compute_at",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         auto l = g.loop();
         return b && l ? g.sch.apply("reverse_compute_at", {*b, l->second}) : notApplicable();
       }},
      {"compute_inline",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         return b ? g.sch.apply("compute_inline", {*b}) : notApplicable();
       }},
      {"reverse_compute_inline",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         return b ? g.sch.apply("reverse_compute_inline", {*b}) : notApplicable();
       }},
      {"cache_read",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b || g.blockOf(*b).reads.empty()) return notApplicable();
         return g.sch.apply("cache_read", {*b, TraceList{}},
                            {g.pick(g.blockOf(*b).reads.size()), g.pick(2) ? "shared" : "local"});
       }},
      {"cache_write",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b || g.blockOf(*b).writes.empty()) return notApplicable();
         return g.sch.apply("cache_write", {*b, TraceList{}}, {0, g.pick(2) ? "shared" : "local"});
       }},
      {"set_scope",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b || g.blockOf(*b).writes.empty()) return notApplicable();
         return g.sch.apply("set_scope", {*b}, {0, "shared"});
       }},
      {"storage_align",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b || g.blockOf(*b).writes.empty()) return notApplicable();
         const auto ndim = static_cast<std::int64_t>(g.blockOf(*b).writes[0].buffer->ndim());
         return g.sch.apply("storage_align", {*b}, {0, g.pick(ndim), 4, 1});
       }},
      {"decompose_reduction",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b) return notApplicable();
         auto ls = g.loops(*b);
         if (ls.empty()) return notApplicable();
         return g.sch.apply("decompose_reduction", {*b, g.pickOf(ls)});
       }},
      {"rfactor",
       [](Gen& g) -> Outcome {
         if (!g.program.exactReductions) return notApplicable(); // float sums would reassociate
         auto l = g.loop();
         return l ? g.sch.apply("rfactor", {l->second}, {0}) : notApplicable();
       }},
      {"blockize",
       [](Gen& g) -> Outcome {
         auto l = g.loop();
         return l ? g.sch.apply("blockize", {l->second}) : notApplicable();
       }},
      {"transform_layout",
       [](Gen& g) -> Outcome {
         auto b = g.block();
         if (!b) return notApplicable();
         const auto& blk = g.blockOf(*b);
         if (blk.writes.empty() || g.isParam(blk.writes[0].buffer)) return notApplicable(); // keep signatures
         schedule::IndexMap map;
         const auto ndim = blk.writes[0].buffer->ndim();
         for (std::size_t d = 0; d < ndim; ++d) map.params.push_back(ir::Var::make(fmt::format("a{}", d)));
         map.results.assign(map.params.rbegin(), map.params.rend()); // reverse the axes
         return g.sch.apply("transform_layout", {*b, TraceList{"write", 0}, map});
       }},
  };
  return table;
}

} // namespace

class TestDifferential : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void everyRowIsRegistered();
  void randomSequences();
};

void TestDifferential::everyRowIsRegistered() {
  // Every registered transformation (not a query) has a row, and every row is registered.
  std::set<std::string> covered;
  for (const auto& r : rows()) {
    QVERIFY2(schedule::findInstructionKind(r.primitive), r.primitive);
    covered.insert(r.primitive);
  }
  const std::set<std::string> queries{"get_block", "get_loops", "get_child_blocks", "get_producers", "get_consumers"};
  for (const auto* kind : schedule::instructionKinds()) {
    const std::string name(kind->name);
    QVERIFY2(covered.contains(name) || queries.contains(name),
             qPrintable(QString("no generator row for the primitive %1").arg(QString::fromStdString(name))));
  }
}

void TestDifferential::randomSequences() {
  // LS_DIFF_SEED and LS_DIFF_SEQUENCES run other seeds / more sequences than the default.
  bool ok = false;
  const int envSequences = qEnvironmentVariableIntValue("LS_DIFF_SEQUENCES", &ok);
  const int kSequences = ok && envSequences > 0 ? envSequences : 500;
  std::uint64_t seed = 20240611;
  if (qEnvironmentVariableIsSet("LS_DIFF_SEED")) seed = qgetenv("LS_DIFF_SEED").toULongLong(&ok);
  QVERIFY2(ok || !qEnvironmentVariableIsSet("LS_DIFF_SEED"), "LS_DIFF_SEED is not an unsigned integer");
  std::mt19937_64 rng(seed);
  std::map<std::string, std::pair<int, int>> counts; // primitive -> (attempts, successes)
  const auto& table = rows();
  const auto nPrograms = std::size(kPrograms);
  std::vector<ir::PrimFunc> originals;
  for (const auto& p : kPrograms) originals.push_back(testing::parseProgram(p.source));
  for (int s = 0; s < kSequences; ++s) {
    const Program& program = kPrograms[static_cast<std::size_t>(s) % nPrograms];
    const ir::PrimFunc& original = originals[static_cast<std::size_t>(s) % nPrograms];
    Schedule sch(original, rng());
    Gen gen{sch, rng, program};
    const int steps = 3 + static_cast<int>(rng() % 6);
    std::string log;
    for (int k = 0; k < steps; ++k) {
      const Row& row = table[rng() % table.size()];
      auto outcome = row.apply(gen);
      if (!outcome && outcome.error().code == "gen.not-applicable") continue;
      auto& c = counts[row.primitive];
      ++c.first;
      if (outcome) ++c.second;
      log += fmt::format("  {} -> {}\n", row.primitive, outcome ? "ok" : outcome.error().code);
    }
    std::string diff = testing::compareResults(original, sch.func(), program.sizes);
    if (!diff.empty() && !program.exactReductions) diff = compareClose(original, sch.func(), program.sizes);
    if (!diff.empty() && qEnvironmentVariableIsSet("LS_DIFF_KEEP_GOING")) {
      qInfo("FAILURE %d %s: %s\n%s%s", s, program.name, diff.substr(0, 160).c_str(), log.c_str(),
            qEnvironmentVariableIsSet("LS_DIFF_TRACE")
                ? (schedule::traceToPython(sch.trace()) + ir::printPrimFunc(sch.func())).c_str()
                : "");
      continue;
    }
    if (!diff.empty())
      QFAIL(qPrintable(QString::fromStdString(fmt::format("sequence {} on {} changed the results: {}\n{}\n{}", s,
                                                          program.name, diff, log,
                                                          ir::printPrimFunc(sch.func())))));
    auto replay = schedule::replayTrace(original, sch.trace(), 777);
    if (!replay)
      QFAIL(qPrintable(QString::fromStdString(fmt::format("sequence {} on {}: replay failed: {}\n{}", s,
                                                          program.name, replay.error().message, log))));
    if (!ir::structuralEqual(replay->func(), sch.func()) && qEnvironmentVariableIsSet("LS_DIFF_KEEP_GOING")) {
      qInfo("REPLAY-DIFF %d %s\n%s", s, program.name, log.c_str());
      continue;
    }
    if (!ir::structuralEqual(replay->func(), sch.func()))
      QFAIL(qPrintable(QString::fromStdString(fmt::format("sequence {} on {}: replay differs\n{}\n{}\n{}", s,
                                                          program.name, log, ir::printPrimFunc(sch.func()),
                                                          ir::printPrimFunc(replay->func())))));
  }
  for (const auto& row : table) {
    const auto [attempts, successes] = counts[row.primitive];
    qInfo("%-24s %4d attempts %4d succeeded", row.primitive, attempts, successes);
    QVERIFY2(successes > 0, qPrintable(QString("%1 never succeeded in %2 attempts").arg(row.primitive).arg(attempts)));
  }
}

QTEST_GUILESS_MAIN(TestDifferential)
#include "tst_differential.moc"
