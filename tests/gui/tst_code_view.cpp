// The code view: generated code is syntax-highlighted (C, LLVM IR) in both themes, and
// linked to the program's loops exactly: selecting a loop highlights the lines it produced
// (its `for` through its closing brace, and a parallel loop's outlined body), two loops of
// the same name in two blocks (stencil1d's `i`) each get their own lines, and a click on a
// line of generated code selects the innermost loop that produced it.
#include "gui_helpers.h"

#include "views/code_highlighter.h"
#include "views/code_view.h"
#include "views/primitive_panel.h"
#include "views/tensorir_view.h"
#include "views/theme.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QUndoStack>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

using Ranges = std::vector<std::pair<int, int>>;

/// Index of the loop `name` above block `block` (and no other block) in the TensorIR view.
int loopOfBlock(gui::MainWindow& w, const std::string& name, const std::string& block) {
  const auto& snap = w.tensorIrView()->snapshot();
  for (std::size_t i = 0; i < snap->nodes.size(); ++i) {
    const views::NodeInfo& n = snap->nodes[i];
    if (n.kind == views::NodeInfo::Kind::Loop && n.name == name && n.blocksBelow.size() == 1 &&
        n.blocksBelow.front() == block)
      return static_cast<int>(i);
  }
  return -1;
}

QPlainTextEdit* codeText(gui::MainWindow& w) {
  return w.codeView()->findChild<QPlainTextEdit*>(QStringLiteral("codeText"));
}

/// Line `line` (1-based) of the code view's text.
QString codeLine(gui::MainWindow& w, int line) {
  const QStringList lines = w.codeView()->code().split(u'\n');
  return line >= 1 && line <= lines.size() ? lines[line - 1] : QString();
}

/// Opens `sample` with the code dock raised and the code generated.
std::unique_ptr<gui::MainWindow> openWithCode(const QString& sample) {
  auto w = makeWindow();
  if (!w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/") + sample)) return nullptr;
  if (!settle(*w)) return nullptr;
  auto* dock = w->findChild<QDockWidget*>(QStringLiteral("codeDock"));
  dock->raise();
  if (!QTest::qWaitFor([&] { return !dock->visibleRegion().isEmpty(); }, 5000)) return nullptr;
  if (!settle(*w) || !w->codeView()->code().contains(QStringLiteral("main_kernel("))) return nullptr;
  return w;
}

/// The format the highlighter gave the character at `column` (0-based) of line `line`.
QTextCharFormat formatAt(QPlainTextEdit* text, int line, int column) {
  const QTextBlock block = text->document()->findBlockByNumber(line - 1);
  for (const QTextLayout::FormatRange& r : block.layout()->formats())
    if (r.start <= column && column < r.start + r.length) return r.format;
  return {};
}

/// The lines the code view's widget itself highlights (its extra selections), 1-based.
std::vector<int> paintedLines(gui::MainWindow& w) {
  std::vector<int> lines;
  for (const QTextEdit::ExtraSelection& s : codeText(w)->extraSelections())
    lines.push_back(s.cursor.blockNumber() + 1);
  return lines;
}

std::vector<int> linesOf(const Ranges& ranges) {
  std::vector<int> lines;
  for (const auto& [first, last] : ranges)
    for (int l = first; l <= last; ++l)
      lines.push_back(l);
  return lines;
}

} // namespace

class TestCodeView : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void stencilLoopsNamedAlikeMapToTheirOwnLines() {
    auto w = openWithCode(QStringLiteral("stencil1d.te"));
    QVERIFY(w);
    views::CodeView* code = w->codeView();
    const int updateI = loopOfBlock(*w, "i", "heat_update");
    const int initI = loopOfBlock(*w, "i", "heat_init");
    QVERIFY(updateI >= 0 && initI >= 0 && updateI != initI);

    // heat_update's i: for each of its three loops (lowering partitions it at the borders,
    // lower_partition.h) its for line through its closing brace, not heat_init's i.
    clickNode(*w, updateI);
    QCOMPARE(w->tensorIrView()->selectedNode(), updateI);
    Ranges ranges = code->highlightedLines();
    QCOMPARE(ranges.size(), std::size_t(3));
    const char* headers[] = {"    for (int64_t i_1 = 0; i_1 < 1; ++i_1) {",
                             "    for (int64_t i_1 = 1; i_1 < 1023; ++i_1) {",
                             "    for (int64_t i_1 = 1023; i_1 < 1024; ++i_1) {"};
    for (std::size_t k = 0; k < 3; ++k) {
      QCOMPARE(codeLine(*w, ranges[k].first), QString::fromUtf8(headers[k]));
      QCOMPARE(codeLine(*w, ranges[k].first + 1), QStringLiteral("      // block heat_update"));
      QCOMPARE(codeLine(*w, ranges[k].second), QStringLiteral("    }"));
      QCOMPARE(ranges[k].second - ranges[k].first, 3);
    }
    auto [first, last] = ranges.front();
    QCOMPARE(ranges[1].first, last + 1);
    QCOMPARE(paintedLines(*w), linesOf(ranges));
    QVERIFY2(code->status().contains(QStringLiteral("loop i: lines %1–%2, %3–%4, %5–%6")
                                         .arg(first)
                                         .arg(last)
                                         .arg(ranges[1].first)
                                         .arg(ranges[1].second)
                                         .arg(ranges[2].first)
                                         .arg(ranges[2].second)),
             qPrintable(code->status()));
    QVERIFY(code->status().startsWith(QStringLiteral("cpu-c c · ")));
    // The header line is marked apart from the body, and visibly.
    const QList<QTextEdit::ExtraSelection> painted = codeText(*w)->extraSelections();
    QCOMPARE(painted.front().format.background().color(), views::codeColors(false).linkedFirst);
    QCOMPARE(painted.back().format.background().color(), views::codeColors(false).linkedLines);
    QVERIFY(painted.front().format.property(QTextFormat::FullWidthSelection).toBool());

    // heat_init's i: its own lines.
    clickNode(*w, initI);
    ranges = code->highlightedLines();
    QCOMPARE(ranges.size(), std::size_t(1));
    std::tie(first, last) = ranges.front();
    QCOMPARE(codeLine(*w, first), QStringLiteral("    for (int64_t i = 0; i < 1024; ++i) {"));
    QCOMPARE(codeLine(*w, first + 1), QStringLiteral("      // block heat_init"));
    QCOMPARE(codeLine(*w, last), QStringLiteral("    }"));

    // t encloses heat_update's i.
    clickNode(*w, nodeIndex(*w, "t"));
    ranges = code->highlightedLines();
    QCOMPARE(ranges.size(), std::size_t(1));
    std::tie(first, last) = ranges.front();
    QCOMPARE(codeLine(*w, first), QStringLiteral("  for (int64_t t = 1; t < 64; ++t) {"));
    QCOMPARE(codeLine(*w, first + 1), QStringLiteral("    for (int64_t i_1 = 0; i_1 < 1; ++i_1) {"));
    QCOMPARE(codeLine(*w, last), QStringLiteral("  }"));

    // A block is no loop: nothing highlighted.
    clickNode(*w, nodeIndex(*w, "heat_update"));
    QVERIFY(code->highlightedLines().empty());
    QVERIFY(codeText(*w)->extraSelections().isEmpty());
  }

  void clickingACodeLineSelectsItsLoop() {
    auto w = openWithCode(QStringLiteral("stencil1d.te"));
    QVERIFY(w);
    const int updateI = loopOfBlock(*w, "i", "heat_update");
    clickNode(*w, nodeIndex(*w, "t"));
    QVERIFY(!w->codeView()->highlightedLines().empty());
    const int first = w->codeView()->highlightedLines().front().first;
    // The store of heat_update in the interior loop of i_1 (inside t, after the loop of
    // the first border point) selects heat_update's i.
    QPlainTextEdit* text = codeText(*w);
    const int store = first + 7;
    QVERIFY2(codeLine(*w, store).trimmed().startsWith(QStringLiteral("heat[t * 1024 + i_1] =")),
             qPrintable(codeLine(*w, store)));
    const QRect rect = text->cursorRect(QTextCursor(text->document()->findBlockByNumber(store - 1)));
    QVERIFY2(text->viewport()->rect().contains(rect.center()), "the selected loop's lines are scrolled into view");
    QTest::mouseClick(text->viewport(), Qt::LeftButton, {}, QPoint(rect.left() + 40, rect.center().y()));
    QCOMPARE(w->tensorIrView()->selectedNode(), updateI);
    QVERIFY(!w->codeView()->highlightedLines().empty());
    QCOMPARE(w->codeView()->highlightedLines().size(), std::size_t(3));
    QCOMPARE(codeLine(*w, w->codeView()->highlightedLines()[1].first).trimmed(),
             QStringLiteral("for (int64_t i_1 = 1; i_1 < 1023; ++i_1) {"));
  }

  void matmulParallelLoopIncludesItsOutlinedBody() {
    auto w = openWithCode(QStringLiteral("matmul.te"));
    QVERIFY(w);
    views::CodeView* code = w->codeView();
    // Before any step: i, j, k nest.
    clickNode(*w, nodeIndex(*w, "k"));
    Ranges k = code->highlightedLines();
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(codeLine(*w, k.front().first).trimmed(), QStringLiteral("for (int64_t k = 0; k < 1024; ++k) {"));
    QCOMPARE(k.front().second - k.front().first, 3);
    clickNode(*w, nodeIndex(*w, "i"));
    QVERIFY(w->primitivePanel()->choosePrimitive(QStringLiteral("parallel")));
    w->action(QStringLiteral("scheduleApply"))->trigger();
    QVERIFY(settle(*w));
    QCOMPARE(w->session()->undoStack()->count(), 1);
    QVERIFY(code->code().contains(QStringLiteral("#pragma omp parallel for")));

    clickNode(*w, nodeIndex(*w, "i"));
    const Ranges i = code->highlightedLines();
    QCOMPARE(i.size(), std::size_t(2));
    // The outlined body (defined first) and the OpenMP loop in the kernel that calls it.
    QVERIFY2(codeLine(*w, i[0].first).startsWith(QStringLiteral("static void main_kernel_par0(")),
             qPrintable(codeLine(*w, i[0].first)));
    QCOMPARE(codeLine(*w, i[0].second), QStringLiteral("}"));
    QCOMPARE(codeLine(*w, i[1].first), QStringLiteral("  #pragma omp parallel for"));
    QVERIFY(codeLine(*w, i[1].first + 1).startsWith(QStringLiteral("  for (int64_t i = 0; i < 1024; ++i) {")));
    QVERIFY(codeLine(*w, i[1].first + 2).trimmed().startsWith(QStringLiteral("main_kernel_par0(")));
    QCOMPARE(codeLine(*w, i[1].second), QStringLiteral("  }"));
    QCOMPARE(i[1].second - i[1].first, 3);
    QCOMPARE(paintedLines(*w), linesOf(i));

    // j lives in the outlined body.
    clickNode(*w, nodeIndex(*w, "j"));
    const Ranges j = code->highlightedLines();
    QCOMPARE(j.size(), std::size_t(1));
    QCOMPARE(codeLine(*w, j.front().first), QStringLiteral("  for (int64_t j = 0; j < 1024; ++j) {"));
    QVERIFY(j.front().first > i[0].first && j.front().second < i[0].second);
  }

  void cHighlightingReadsInBothThemes() {
    auto w = openWithCode(QStringLiteral("stencil1d.te"));
    QVERIFY(w);
    QPlainTextEdit* text = codeText(*w);
    const int updateI = loopOfBlock(*w, "i", "heat_update");
    clickNode(*w, updateI);
    QVERIFY(!w->codeView()->highlightedLines().empty());
    // The interior loop of the three (lower_partition.h).
    const int header = w->codeView()->highlightedLines().at(1).first;
    const QString line = codeLine(*w, header); // "    for (int64_t i_1 = 1; i_1 < 1023; ++i_1) {"
    const int forAt = static_cast<int>(line.indexOf(QStringLiteral("for")));
    const int typeAt = static_cast<int>(line.indexOf(QStringLiteral("int64_t")));
    const int numberAt = static_cast<int>(line.indexOf(QStringLiteral("1023")));
    const int varAt = static_cast<int>(line.indexOf(QStringLiteral("i_1")));

    for (bool dark : {false, true}) {
      w->setDarkTheme(dark);
      const views::CodeColors colors = views::codeColors(dark);
      const QTextCharFormat keyword = formatAt(text, header, forAt);
      QCOMPARE(keyword.foreground().color(), colors.keyword);
      QCOMPARE(keyword.fontWeight(), int(QFont::Bold));
      QCOMPARE(formatAt(text, header, typeAt).foreground().color(), colors.type);
      QCOMPARE(formatAt(text, header, numberAt).foreground().color(), colors.number);
      // A plain identifier keeps the text colour: it has no format of its own.
      QVERIFY(!formatAt(text, header, varAt).hasProperty(QTextFormat::ForegroundBrush));
      QVERIFY(formatAt(text, header, forAt) != formatAt(text, header, varAt));
      const QTextCharFormat comment = formatAt(text, header + 1, 8); // "      // block heat_update"
      QCOMPARE(comment.foreground().color(), colors.comment);
      QVERIFY(comment.fontItalic());
      QCOMPARE(formatAt(text, 4, 0).foreground().color(), colors.preprocessor); // #include <math.h>
      // The loop's highlight is recoloured with the theme.
      QVERIFY(!text->extraSelections().isEmpty());
      QCOMPARE(text->extraSelections().front().format.background().color(), colors.linkedFirst);
    }
    QVERIFY(views::codeColors(true).keyword != views::codeColors(false).keyword);
  }

  void llvmIrIsHighlightedAndSaysItIsNotLinked() {
    auto w = openWithCode(QStringLiteral("matmul.te"));
    QVERIFY(w);
    auto* target = w->codeView()->findChild<QComboBox*>(QStringLiteral("codeTarget"));
    const int llvm = target->findData(QStringLiteral("cpu-llvm"));
    if (llvm < 0 || !(target->model()->flags(target->model()->index(llvm, 0)) & Qt::ItemIsEnabled))
      QSKIP("the cpu-llvm plugin is not usable here");
    clickNode(*w, nodeIndex(*w, "k"));
    target->setCurrentIndex(llvm);
    QVERIFY(settle(*w));
    views::CodeView* code = w->codeView();
    QCOMPARE(code->currentFormat(), QStringLiteral("llvm"));
    QVERIFY2(code->code().contains(QStringLiteral("define ")), qPrintable(code->code().left(300)));
    QVERIFY(code->highlightedLines().empty());
    QVERIFY(codeText(*w)->extraSelections().isEmpty());
    QVERIFY2(code->status().contains(QStringLiteral("LLVM IR lines are not linked to loops")),
             qPrintable(code->status()));
    const QStringList lines = code->code().split(u'\n');
    const int define = static_cast<int>(lines.indexOf(QRegularExpression(QStringLiteral("^define .*"))));
    QVERIFY(define >= 0);
    QPlainTextEdit* text = codeText(*w);
    QCOMPARE(formatAt(text, define + 1, 0).foreground().color(), views::codeColors(false).keyword);
    const int at = static_cast<int>(lines[define].indexOf(u'@'));
    QCOMPARE(formatAt(text, define + 1, at).foreground().color(), views::codeColors(false).function);
  }

  void viewLinksNestedLoopsAndSaysWhenALoopHasNoLines() {
    views::CodeView view;
    const ir::Expr outer = ir::Var::make("i"), inner = ir::Var::make("j"), gone = ir::Var::make("k");
    views::CodeMap map;
    map.format = QStringLiteral("c");
    map.loops = {{outer, 2, 6}, {inner, 3, 5}};
    view.setCode(QStringLiteral("void f() {\n  for (i) {\n    for (j) {\n      x;\n    }\n  }\n}\n"),
                 QStringLiteral("cpu-c c"), map);
    QCOMPARE(view.loopAtLine(4).get(), inner.get()); // the innermost loop of the line
    QCOMPARE(view.loopAtLine(2).get(), outer.get());
    QVERIFY(!view.loopAtLine(1).defined());
    view.setSelectedLoop(outer);
    QCOMPARE(view.highlightedLines(), (Ranges{{2, 6}}));
    QCOMPARE(view.status(), QStringLiteral("cpu-c c — loop i: lines 2–6"));
    // A loop the lowering unrolled or vectorized has no lines of its own.
    view.setSelectedLoop(gone);
    QVERIFY(view.highlightedLines().empty());
    QCOMPARE(view.linkStatus(), QStringLiteral("loop k has no lines of its own here (unrolled or vectorized)"));
    // No loop selected: the status is the generator's alone.
    view.setSelectedLoop({});
    QCOMPARE(view.status(), QStringLiteral("cpu-c c"));
    // An error report is plain text with no links.
    view.setSelectedLoop(outer);
    view.setError(QStringLiteral("error: for"), QStringLiteral("failed"));
    QVERIFY(view.highlightedLines().empty());
    QVERIFY(view.linkStatus().isEmpty());
  }

  void highlighterLanguagesOfFormats() {
    using L = views::CodeHighlighter::Language;
    QCOMPARE(views::CodeHighlighter::languageOf(QStringLiteral("c")), L::C);
    QCOMPARE(views::CodeHighlighter::languageOf(QStringLiteral("llvm")), L::LlvmIr);
    QCOMPARE(views::CodeHighlighter::languageOf(QStringLiteral("asm")), L::Asm);
    QCOMPARE(views::CodeHighlighter::languageOf(QStringLiteral("report")), L::Plain);
    // Assembly: mnemonics, registers, directives, labels and comments.
    QTextDocument doc;
    doc.setPlainText(QStringLiteral("main_kernel:\n\tvmovups\t(%rdi), %zmm0\t# load\n\t.p2align 4\n"));
    views::CodeHighlighter h(&doc, L::Asm);
    h.rehighlight();
    const views::CodeColors colors = views::codeColors(false);
    auto at = [&](int line, int column) {
      for (const QTextLayout::FormatRange& r : doc.findBlockByNumber(line - 1).layout()->formats())
        if (r.start <= column && column < r.start + r.length) return r.format.foreground().color();
      return QColor();
    };
    QCOMPARE(at(1, 0), colors.label);
    QCOMPARE(at(2, 1), colors.keyword);
    QCOMPARE(at(2, 10), colors.variable); // %rdi
    QCOMPARE(at(2, 26), colors.comment);
    QCOMPARE(at(3, 1), colors.preprocessor);
  }
};

QTEST_MAIN(TestCodeView)
#include "tst_code_view.moc"
