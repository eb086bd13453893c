// firstDifference: empty exactly when structuralEqual says equal (over every pair of the
// scheduled golden programs), names aside; the path and the two parts it reports for a
// changed operator, constant, variable and block name; map-free-vars.
#include "core/frontend/tvmscript/tvmscript.h"
#include "core/ir/structural_diff.h"
#include "core/ir/structural_equal.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using namespace loopscape;

namespace {

ir::PrimFunc parse(const std::string& text) {
  auto p = frontend::parseTvmScript(text, "t.py");
  if (!p) qFatal("%s", renderDiagnostic(p.error(), text).c_str());
  return p->module.functions.front();
}

const std::string kMatmul = R"(@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string joined(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& s : path)
    out += (out.empty() ? "" : " > ") + s;
  return out;
}

} // namespace

class TestStructuralDiff : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void agreesWithStructuralEqual() {
    std::vector<ir::PrimFunc> funcs;
    for (const auto& f : QDir(QStringLiteral(LS_SOURCE_DIR "/tests/schedule/golden")).entryList({"*.py"})) {
      QFile file(QStringLiteral(LS_SOURCE_DIR "/tests/schedule/golden/") + f);
      QVERIFY(file.open(QIODevice::ReadOnly));
      funcs.push_back(parse(file.readAll().toStdString()));
    }
    QVERIFY(funcs.size() >= 40);
    int equalPairs = 0;
    for (std::size_t i = 0; i < funcs.size(); ++i)
      for (std::size_t j = 0; j < funcs.size(); ++j) {
        const bool equal = ir::structuralEqual(funcs[i], funcs[j]);
        equalPairs += equal;
        QCOMPARE(!ir::firstDifference(funcs[i], funcs[j], true).has_value(), equal);
      }
    QVERIFY(equalPairs >= static_cast<int>(funcs.size())); // at least each with itself
  }

  void renamedProgramsAreEqual() {
    const std::string renamed =
        replaced(replaced(replaced(kMatmul, "v_i", "x"), "A", "Lhs"), "for i, j, k", "for a, b, c");
    QVERIFY(!ir::firstDifference(parse(kMatmul), parse(replaced(renamed, "[i, j, k]", "[a, b, c]")), false));
  }

  void differences_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("lhs");
    QTest::addColumn<QString>("rhs");
    QTest::newRow("operator") << "A[v_i, v_k] * B"
                              << "A[v_i, v_k] / B"
                              << "block \"root\" > for i > for j > for k > block \"C\" > store to C > value > operand b"
                              << "Mul against Div"
                              << "A[v_i, v_k] * B[v_k, v_j]"
                              << "A[v_i, v_k] / B[v_k, v_j]";
    QTest::newRow("init constant") << "T.float32(0)"
                                   << "T.float32(1)"
                                   << "block \"root\" > for i > for j > for k > block \"C\" > T.init > store to C > "
                                      "value"
                                   << "the constants differ"
                                   << "T.float32(0)"
                                   << "T.float32(1)";
    QTest::newRow("swapped index")
        << "B[v_k, v_j])\n"
        << "B[v_j, v_k])\n"
        << "block \"root\" > for i > for j > for k > block \"C\" > T.reads 2 > dimension 1 > "
           "min"
        << "different variables (each name must stand for the same variable throughout)"
        << "v_k"
        << "v_j";
    QTest::newRow("block name") << "T.block(\"C\")"
                                << "T.block(\"D\")"
                                << "block \"root\" > for i > for j > for k > block \"C\" > name"
                                << "the block names differ"
                                << "C"
                                << "D";
  }

  void differences() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    const auto d =
        ir::firstDifference(parse(kMatmul), parse(replaced(kMatmul, from.toStdString(), to.toStdString())), true);
    QVERIFY(d.has_value());
    QFETCH(QString, path);
    QFETCH(QString, reason);
    QFETCH(QString, lhs);
    QFETCH(QString, rhs);
    QCOMPARE(QString::fromStdString(joined(d->path)), path);
    QCOMPARE(QString::fromStdString(d->reason), reason);
    QCOMPARE(QString::fromStdString(d->lhs), lhs);
    QCOMPARE(QString::fromStdString(d->rhs), rhs);
    QVERIFY(d->lhsStmt != nullptr && d->rhsStmt != nullptr);
  }

  void freeVariablesByName() {
    const std::string a = R"(@T.prim_func
def main(A: T.Buffer(("n",), "float32")):
    n = T.int32()
    for i in range(n):
        with T.block("A"):
            v = T.axis.spatial(n, i)
            A[v] = T.float32(0)
)";
    const std::string b = replaced(a, "\"n\"", "\"m\"");
    const std::string bb = replaced(replaced(b, "n = T.int32()", "m = T.int32()"), "(n", "(m");
    const auto byName = ir::firstDifference(parse(a), parse(bb), false);
    QVERIFY(byName.has_value());
    QCOMPARE(byName->reason, std::string("the symbolic sizes have different names (compare with --map-free-vars to "
                                         "match them by position)"));
    QVERIFY(!ir::firstDifference(parse(a), parse(bb), true).has_value());
  }
};

QTEST_GUILESS_MAIN(TestStructuralDiff)
#include "tst_structural_diff.moc"
