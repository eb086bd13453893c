// The workbench's selection is a loop or block of the tree, never a name: on stencil1d
// (a loop i in heat_init and one in heat_update) a split selects the loop it produced, an
// edit keeps the loop at the same position, a step that leaves nothing selectable says so,
// and the status bar always describes the current selection. Also: the selection is
// recoloured when the theme changes, and the diagnostics pane keeps earlier reports.
#include "gui_helpers.h"

#include "views/diagnostics_view.h"
#include "views/primitive_panel.h"
#include "views/program_editor.h"
#include "views/status_label.h"
#include "views/tensorir_view.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTest>
#include <QTextBlock>
#include <QTextEdit>
#include <QTextLayout>
#include <QUndoStack>

using namespace loopscape;
using namespace loopscape::testing;

namespace {

/// Index of the loop `name` directly around or above block `block` in the view.
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

QString statusText(gui::MainWindow& w) { return w.findChild<QLabel*>(QStringLiteral("statusLabel"))->text(); }
QString panelHeader(gui::MainWindow& w) {
  return w.primitivePanel()->findChild<QLabel*>(QStringLiteral("primitiveSelection"))->text();
}

void applySplit(gui::MainWindow& w, int loop, const QString& factors) {
  clickNode(w, loop);
  QCOMPARE(w.tensorIrView()->selectedNode(), loop);
  QVERIFY(w.primitivePanel()->choosePrimitive(QStringLiteral("split")));
  w.primitivePanel()->findChild<QLineEdit*>(QStringLiteral("factors"))->setText(factors);
  QTest::mouseClick(w.primitivePanel()->findChild<QPushButton*>(QStringLiteral("primitiveApply")), Qt::LeftButton);
  QVERIFY(settle(w));
}

} // namespace

class TestSelection : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void splitSelectsTheLoopItProduced() {
    auto w = makeWindow();
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te")));
    QVERIFY(settle(*w));
    const int i = loopOfBlock(*w, "i", "heat_update");
    QVERIFY(i >= 0);
    QVERIFY(i != loopOfBlock(*w, "i", "heat_init"));
    applySplit(*w, i, QStringLiteral("None, 32"));
    QCOMPARE(w->session()->undoStack()->count(), 1);
    // The outer loop of the split, in heat_update; not heat_init's i.
    const int selected = w->tensorIrView()->selectedNode();
    QVERIFY(selected >= 0);
    QCOMPARE(selected, loopOfBlock(*w, "i_0", "heat_update"));
    QCOMPARE(panelHeader(*w), QStringLiteral("<b>loop i_0 (32; heat_update)</b>"));
    QVERIFY2(statusText(*w).startsWith(QStringLiteral("loop i_0 · extent: 32")), qPrintable(statusText(*w)));
    // Undo keeps the loop at i_0's position: heat_update's i again.
    w->session()->undoStack()->undo();
    QVERIFY(settle(*w));
    QCOMPARE(w->tensorIrView()->selectedNode(), loopOfBlock(*w, "i", "heat_update"));
    QCOMPARE(panelHeader(*w), QStringLiteral("<b>loop i (1024; heat_update)</b>"));
    // Redo selects what the step produced again.
    w->session()->undoStack()->redo();
    QVERIFY(settle(*w));
    QCOMPARE(w->tensorIrView()->selectedNode(), loopOfBlock(*w, "i_0", "heat_update"));
  }

  void editKeepsTheLoopAtItsPosition() {
    auto w = makeWindow();
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te")));
    QVERIFY(settle(*w));
    clickNode(*w, loopOfBlock(*w, "i", "heat_update"));
    QString source = w->session()->source();
    source.replace(QStringLiteral("T, N = 64, 1024"), QStringLiteral("T, N = 64, 512"));
    w->session()->editSource(source);
    QVERIFY(settle(*w));
    QCOMPARE(w->tensorIrView()->selectedNode(), loopOfBlock(*w, "i", "heat_update"));
    QCOMPARE(panelHeader(*w), QStringLiteral("<b>loop i (512; heat_update)</b>"));
    QVERIFY2(statusText(*w).startsWith(QStringLiteral("loop i · extent: 512")), qPrintable(statusText(*w)));
  }

  void aStepThatLeavesNothingSelectableSaysSo() {
    auto w = makeWindow();
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te")));
    QVERIFY(settle(*w));
    clickNode(*w, loopOfBlock(*w, "t", "heat_update"));
    // poly_tile names its band by attribute: no loop of the result is the step's.
    QVERIFY(w->primitivePanel()->choosePrimitive(QStringLiteral("poly_tile")));
    auto* sizes = w->primitivePanel()->findChild<QLineEdit*>(QStringLiteral("poly_sizes"));
    QVERIFY(sizes);
    sizes->setText(QStringLiteral("8"));
    QTest::mouseClick(w->primitivePanel()->findChild<QPushButton*>(QStringLiteral("primitiveApply")), Qt::LeftButton);
    QVERIFY(settle(*w));
    QCOMPARE(w->session()->undoStack()->count(), 1);
    QCOMPARE(w->tensorIrView()->selectedNode(), -1);
    QCOMPARE(statusText(*w), QStringLiteral("The step left no loop or block to select: click one to go on."));
    QCOMPARE(panelHeader(*w), QStringLiteral("Click a loop or a block in the TensorIR view."));
  }

  void longLoopBoundsNeverWidenThePanel() {
    // After a skew and a tile, loop extents are long isl bounds ("T.min(63, t_0 * 8 +
    // ..."): no form of any primitive may make the Primitives dock wider than it was.
    auto w = makeWindow();
    w->resize(1280, 800);
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te")));
    QVERIFY(settle(*w));
    w->session()->loadTrace(QStringLiteral("sch.poly_skew(band=\"t\", member=1, by_member=0, factor=1)\n"
                                           "sch.poly_tile(band=\"t\", sizes=[8, 64])\n"),
                            QStringLiteral("t.py"));
    QVERIFY(settle(*w));
    QCOMPARE(w->session()->state()->trace->stepCount, 2);
    const int limit = w->primitivePanel()->minimumSizeHint().width() + 40;
    const auto& snap = w->tensorIrView()->snapshot();
    int longest = -1;
    for (std::size_t n = 0; n < snap->nodes.size(); ++n)
      if (snap->nodes[n].kind == views::NodeInfo::Kind::Loop &&
          (longest < 0 || snap->nodes[n].extent.size() > snap->nodes[longest].extent.size()))
        longest = static_cast<int>(n);
    QVERIFY(longest >= 0);
    QVERIFY2(snap->nodes[longest].extent.size() > 40, snap->nodes[longest].extent.c_str());
    w->tensorIrView()->selectNode(longest);
    // The TensorIR view shows the start of that header (its loop variable), not its end.
    QTextCursor at = w->tensorIrView()->textCursor();
    const QTextBlock header = at.block();
    at.setPosition(header.position() +
                   static_cast<int>(header.text().indexOf(QRegularExpression(QStringLiteral("\\S")))));
    QVERIFY2(w->tensorIrView()->viewport()->rect().contains(w->tensorIrView()->cursorRect(at).center()),
             "the start of the selected loop's header is scrolled out of view");
    at.movePosition(QTextCursor::EndOfBlock);
    QVERIFY(!w->tensorIrView()->viewport()->rect().contains(w->tensorIrView()->cursorRect(at).center()));
    for (const QString& name : w->primitivePanel()->primitives()) {
      QVERIFY(w->primitivePanel()->choosePrimitive(name));
      QVERIFY2(w->primitivePanel()->minimumSizeHint().width() <= std::max(limit, 420),
               qPrintable(QStringLiteral("%1: %2").arg(name).arg(w->primitivePanel()->minimumSizeHint().width())));
      if (name == QStringLiteral("split")) {
        auto* factors = w->primitivePanel()->findChild<QLineEdit*>(QStringLiteral("factors"));
        factors->setText(QStringLiteral("None, None, None, 3000000000, 17"));
        QVERIFY(w->primitivePanel()->minimumSizeHint().width() <= std::max(limit, 420));
      }
    }
  }

  void themeSwitchRecoloursTheSelection() {
    auto w = makeWindow();
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te")));
    QVERIFY(settle(*w));
    w->setDarkTheme(false);
    clickNode(*w, loopOfBlock(*w, "i", "heat_update"));
    w->editor()->setFocus(); // the TensorIR view without focus, as in the report
    auto selectionBackground = [&] {
      const auto selections = w->tensorIrView()->extraSelections();
      return selections.isEmpty() ? QColor() : selections.back().format.background().color();
    };
    QVERIFY(selectionBackground().lightness() > 128);
    w->setDarkTheme(true);
    QVERIFY2(selectionBackground().lightness() < 128, qPrintable(selectionBackground().name()));
    w->setDarkTheme(false);
    QVERIFY(selectionBackground().lightness() > 128);
  }

  void aRefusalNamesTheBlockAndElidesInTheStatusBar() {
    // Issue 14 item 10, end to end: parallel on heat_update's t (it carries the stencil's
    // dependence) is refused; the Diagnostics row names the block, and the status bar
    // keeps the whole message as its tooltip, painting its first line elided to the width
    // it has instead of widening the window or cutting it off.
    auto w = makeWindow();
    QVERIFY(w->openPath(QStringLiteral(LS_SOURCE_DIR "/samples/stencil1d.te")));
    QVERIFY(settle(*w));
    const int width = w->width();
    clickNode(*w, loopOfBlock(*w, "t", "heat_update"));
    QVERIFY(w->primitivePanel()->choosePrimitive(QStringLiteral("parallel")));
    QTest::mouseClick(w->primitivePanel()->findChild<QPushButton*>(QStringLiteral("primitiveApply")), Qt::LeftButton);
    QVERIFY(settle(*w));
    QCOMPARE(w->session()->undoStack()->count(), 0);
    views::DiagnosticsModel* model = w->diagnosticsView()->model();
    QVERIFY(model->rowCount() >= 1);
    QVERIFY2(model->index(0, views::DiagnosticsModel::LocationColumn)
                 .data()
                 .toString()
                 .contains(QStringLiteral("heat_update")),
             qPrintable(model->index(0, views::DiagnosticsModel::LocationColumn).data().toString()));
    auto* label = w->findChild<views::StatusLabel*>(QStringLiteral("statusLabel"));
    QVERIFY(label);
    QVERIFY2(label->text().startsWith(QStringLiteral("Refused: ")), qPrintable(label->text()));
    QCOMPARE(label->toolTip(), label->text());
    QCOMPARE(w->width(), width);
    // A message longer than the bar: painted elided, whole in the tooltip.
    const QString longMessage = QStringLiteral("Refused: ") + QString(400, QLatin1Char('x')) + QStringLiteral("\nmore");
    label->setMessage(longMessage);
    QCOMPARE(label->toolTip(), longMessage);
    QVERIFY2(label->shownText().endsWith(QChar(0x2026)), qPrintable(label->shownText()));
    QVERIFY(label->fontMetrics().horizontalAdvance(label->shownText()) <= label->contentsRect().width());
    QCOMPARE(w->width(), width);
  }

  void diagnosticsKeepHistoryWrapProseAndNameThePlace() {
    views::DiagnosticsView view;
    view.resize(700, 300);
    view.show();
    views::DiagnosticItem first;
    first.code = "schedule.reorder.illegal";
    first.message = "reorder is illegal: " + std::string(300, 'x');
    first.place = "block heat_update";
    first.detail = "ScheduleError: An error occurred in the schedule primitive 'reorder'.\n"
                   "The IR with diagnostic is:\n"
                   "    for t in range(1, 64):\n"
                   "        ^^^^^^^^^^^^^^^^^^\n"
                   "Error message: " +
                   first.message;
    view.setItems({first});
    views::DiagnosticsModel* model = view.model();
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0, views::DiagnosticsModel::LocationColumn).data().toString(),
             QStringLiteral("block heat_update"));
    // Program and caret lines keep their layout; the message wraps.
    auto* detail = view.findChild<QTextEdit*>(QStringLiteral("diagnosticDetail"));
    QTextDocument* doc = detail->document();
    QCOMPARE(doc->blockCount(), 5);
    QVERIFY(!doc->findBlockByNumber(0).blockFormat().nonBreakableLines());
    QVERIFY(doc->findBlockByNumber(2).blockFormat().nonBreakableLines());
    QVERIFY(doc->findBlockByNumber(3).blockFormat().nonBreakableLines());
    QVERIFY(!doc->findBlockByNumber(4).blockFormat().nonBreakableLines());
    QVERIFY(doc->findBlockByNumber(4).layout()->lineCount() > 1);
    QCOMPARE(view.detailText(), QString::fromStdString(first.detail));

    views::DiagnosticItem second;
    second.code = "schedule.split.factor-product";
    second.message = "split of loop 'i': the factors multiply to 6, less than the extent 8";
    view.setItems({second});
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("schedule.split.factor-product"));
    QCOMPARE(model->index(1, 0).data().toString(), QStringLiteral("schedule.reorder.illegal"));
    QVERIFY(!model->item(0)->earlier);
    QVERIFY(model->item(1)->earlier);
    QVERIFY(model->index(1, 0).data(Qt::ForegroundRole).isValid());
    // The current diagnostic coming back leaves the history; clearing forgets the rest.
    view.setItems({first});
    QCOMPARE(model->rowCount(), 2);
    QVERIFY(!model->item(0)->earlier);
    QCOMPARE(model->index(1, 0).data().toString(), QStringLiteral("schedule.split.factor-product"));
    view.clearHistory();
    QCOMPARE(model->rowCount(), 1);
  }
};

QTEST_MAIN(TestSelection)
#include "tst_selection.moc"
