// The primitive panel and the Schedule menu as the user sees them, pinned: for every loop
// and block of a few programs, the primitives listed (in order, with their tooltips) and,
// for each, its form (every editor's class, objectName, tooltip and initial value) and
// the request its defaults build; and every primitive's menu entry (text, shortcut).
// All of it comes from the instruction table; the golden file was written by the panel
// that still matched primitive names, so the table must reproduce it exactly.
// LS_UPDATE_GOLDEN=1 rewrites tests/gui/golden/primitive_forms.txt.
#include "gui_helpers.h"

#include "core/poly/poly_schedule.h"
#include "core/schedule/instruction.h"
#include "core/schedule/trace_python.h"
#include "views/primitive_panel.h"
#include "views/program_snapshot.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>

using namespace loopscape;

namespace {

// ---- begin dump (the same code dumped the panel of the name-matching version) ----
QString describeWidget(const QWidget* w) {
  QString s = QString::fromLatin1(w->metaObject()->className());
  if (!w->objectName().isEmpty()) s += u'#' + w->objectName();
  if (!w->toolTip().isEmpty()) s += QStringLiteral(" tip=[%1]").arg(w->toolTip());
  if (const auto* l = qobject_cast<const QLabel*>(w)) s += QStringLiteral(" text=[%1]").arg(l->text());
  if (const auto* e = qobject_cast<const QLineEdit*>(w))
    s += QStringLiteral(" text=[%1] placeholder=[%2]").arg(e->text(), e->placeholderText());
  if (const auto* c = qobject_cast<const QComboBox*>(w)) {
    QStringList items;
    for (int i = 0; i < c->count(); ++i)
      items << c->itemText(i);
    s += QStringLiteral(" editable=%1 current=[%2] items=[%3]")
             .arg(c->isEditable())
             .arg(c->currentText(), items.join(u'|'));
  }
  if (const auto* b = qobject_cast<const QCheckBox*>(w)) s += QStringLiteral(" checked=%1").arg(b->isChecked());
  if (const auto* sp = qobject_cast<const QSpinBox*>(w))
    s += QStringLiteral(" value=%1 range=%2..%3").arg(sp->value()).arg(sp->minimum()).arg(sp->maximum());
  if (const auto* d = qobject_cast<const QDoubleSpinBox*>(w)) s += QStringLiteral(" value=%1").arg(d->value());
  if (const auto* p = qobject_cast<const QPushButton*>(w))
    s += QStringLiteral(" text=[%1] checkable=%2").arg(p->text()).arg(p->isCheckable());
  if (const auto* lw = qobject_cast<const QListWidget*>(w)) {
    QStringList items;
    for (int i = 0; i < lw->count(); ++i)
      items << lw->item(i)->text() + (lw->item(i)->checkState() == Qt::Checked ? QStringLiteral("+") : QString());
    s += QStringLiteral(" items=[%1]").arg(items.join(u'|'));
  }
  return s;
}

void dumpTree(const QWidget* w, int depth, QString& out) {
  out += QString(depth * 2, u' ') + describeWidget(w) + u'\n';
  for (const QObject* c : w->children())
    if (const auto* cw = qobject_cast<const QWidget*>(c); cw && !cw->isWindow()) // not a combo's popup
      dumpTree(cw, depth + 1, out);
}

QString requestText(const views::PrimitivePanel& panel) {
  auto r = panel.buildRequest();
  if (const QString* err = std::get_if<QString>(&r)) return QStringLiteral("error: ") + *err;
  const views::PrimitiveRequest& req = std::get<views::PrimitiveRequest>(r);
  QStringList parts;
  for (const views::RequestArg& a : req.inputs) {
    if (const auto* v = std::get_if<schedule::TraceValue>(&a.value)) {
      parts << QString::fromStdString(schedule::pythonValue(*v));
    } else if (const auto* n = std::get_if<const ir::StmtNode*>(&a.value)) {
      parts << QStringLiteral("node:") + QString::fromStdString(req.snapshot->nodes[req.snapshot->indexOf(*n)].name);
    } else {
      QStringList names;
      for (const ir::StmtNode* node : std::get<std::vector<const ir::StmtNode*>>(a.value))
        names << QString::fromStdString(req.snapshot->nodes[req.snapshot->indexOf(node)].name);
      parts << QStringLiteral("nodes:[%1]").arg(names.join(u','));
    }
  }
  for (const schedule::TraceValue& v : req.attrs)
    parts << QString::fromStdString(schedule::pythonValue(v));
  return QString::fromStdString(req.kind) + u'(' + parts.join(QStringLiteral(", ")) + u')';
}

QString dumpPanel(const std::shared_ptr<const views::ProgramSnapshot>& snap) {
  QString out;
  views::PrimitivePanel panel;
  for (std::size_t n = 0; n < snap->nodes.size(); ++n) {
    panel.setSelection(snap, static_cast<int>(n));
    out += QStringLiteral("== node %1 %2\n").arg(n).arg(QString::fromStdString(snap->nodes[n].name));
    for (int i = 0; i < panel.list()->count(); ++i) {
      const QListWidgetItem* item = panel.list()->item(i);
      out += QStringLiteral("- %1 | %2\n").arg(item->text(), item->toolTip());
    }
    for (const QString& name : panel.primitives()) {
      panel.choosePrimitive(name);
      out += QStringLiteral("  -- %1\n").arg(name);
      const schedule::InstructionKind* kind = schedule::findInstructionKind(name.toStdString());
      QStringList fields;
      for (auto in : kind->inputNames)
        fields << QString::fromUtf8(in.data(), qsizetype(in.size()));
      for (const auto& a : kind->attrs)
        fields << QString::fromUtf8(a.name.data(), qsizetype(a.name.size()));
      for (const QString& f : fields) {
        out += QStringLiteral("    %1:\n").arg(f);
        if (QWidget* w = panel.editor(f)) dumpTree(w, 3, out);
      }
      out += QStringLiteral("    request: %1\n").arg(requestText(panel));
    }
  }
  return out;
}
// ---- end dump ----

QString goldenPath() { return QStringLiteral(LS_SOURCE_DIR "/tests/gui/golden/primitive_forms.txt"); }

QString programsDump() {
  poly::registerPolyInstructionKinds();
  QString out;
  for (const QString& sample : {QStringLiteral("matmul.te"), QStringLiteral("conv_bias_relu.te")}) {
    schedule::Schedule sch(testing::parseSample(sample));
    out += QStringLiteral("#### %1\n").arg(sample) + dumpPanel(views::analysedSnapshot(sch.state()));
  }
  return out;
}

} // namespace

class TestPrimitiveForms : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void panelMatchesGolden() {
    const QString dump = programsDump();
    if (qEnvironmentVariableIsSet("LS_UPDATE_GOLDEN")) {
      QFile f(goldenPath());
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Text));
      f.write(dump.toUtf8());
      return;
    }
    QFile f(goldenPath());
    QVERIFY2(f.open(QIODevice::ReadOnly | QIODevice::Text), qPrintable(goldenPath()));
    const QStringList expected = QString::fromUtf8(f.readAll()).split(u'\n');
    const QStringList actual = dump.split(u'\n');
    for (qsizetype i = 0; i < std::min(expected.size(), actual.size()); ++i)
      QVERIFY2(
          expected[i] == actual[i],
          qPrintable(QStringLiteral("line %1:\n  expected %2\n  actual   %3").arg(i + 1).arg(expected[i], actual[i])));
    QCOMPARE(actual.size(), expected.size());
  }

  void scheduleMenuEntries() {
    // The Schedule menu's entries as they were written by hand before the table had them.
    const std::pair<const char*, const char*> expected[] = {
        {"split", "Ctrl+Alt+S"},
        {"fuse", "Ctrl+Alt+F"},
        {"reorder", "Ctrl+Alt+R"},
        {"add_unit_loop", "Ctrl+Alt+Shift+U"},
        {"loop_partition", "Ctrl+Alt+Shift+P"},
        {"parallel", "Ctrl+Alt+P"},
        {"vectorize", "Ctrl+Alt+V"},
        {"unroll", "Ctrl+Alt+U"},
        {"bind", "Ctrl+Alt+B"},
        {"annotate", "Ctrl+Alt+N"},
        {"unannotate", "Ctrl+Alt+Shift+N"},
        {"compute_at", "Ctrl+Alt+A"},
        {"reverse_compute_at", "Ctrl+Alt+Shift+A"},
        {"compute_inline", "Ctrl+Alt+I"},
        {"reverse_compute_inline", "Ctrl+Alt+Shift+I"},
        {"cache_read", "Ctrl+Alt+C"},
        {"cache_write", "Ctrl+Alt+W"},
        {"set_scope", "Ctrl+Alt+Shift+C"},
        {"storage_align", "Ctrl+Alt+G"},
        {"decompose_reduction", "Ctrl+Alt+D"},
        {"rfactor", "Ctrl+Alt+Shift+F"},
        {"blockize", "Ctrl+Alt+K"},
        {"transform_layout", "Ctrl+Alt+Shift+L"},
        {"poly_auto", "Ctrl+Alt+Y"},
        {"poly_optimize", "Ctrl+Alt+O"},
        {"poly_tile", "Ctrl+Alt+T"},
        {"poly_interchange", "Ctrl+Alt+1"},
        {"poly_skew", "Ctrl+Alt+2"},
        {"poly_shift", "Ctrl+Alt+3"},
        {"poly_fuse", "Ctrl+Alt+4"},
        {"poly_distribute", "Ctrl+Alt+5"},
        {"poly_mark", "Ctrl+Alt+6"},
        {"poly_compute_at_tile", "Ctrl+Alt+7"},
    };
    auto w = testing::makeWindow();
    QStringList menu;
    for (QAction* a : w->findChild<QMenu*>(QStringLiteral("scheduleMenu"))->actions())
      if (a->objectName().startsWith(QStringLiteral("primitive_"))) menu << a->objectName().mid(10);
    QStringList names;
    for (const auto& [name, shortcut] : expected) {
      names << QString::fromLatin1(name);
      QAction* a = w->action(QStringLiteral("primitive_") + QString::fromLatin1(name));
      QVERIFY2(a, name);
      QCOMPARE(a->text(), QString::fromLatin1(name));
      QCOMPARE(a->shortcut(), QKeySequence(QString::fromLatin1(shortcut)));
    }
    names.sort();
    menu.sort();
    QCOMPARE(menu, names);
  }
};

QTEST_MAIN(TestPrimitiveForms)
#include "tst_primitive_forms.moc"
