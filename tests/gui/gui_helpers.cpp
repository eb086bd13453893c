#include "gui_helpers.h"

#include "core/frontend/te_frontend.h"
#include "views/primitive_panel.h"
#include "views/tensorir_view.h"

#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTest>

namespace loopscape::testing {

QString readSample(const QString& name) {
  QFile f(QStringLiteral(LS_SOURCE_DIR "/samples/") + name);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

ir::PrimFunc parseSample(const QString& name) {
  auto func = frontend::parseTe(readSample(name).toStdString(), name.toStdString());
  if (!func) qFatal("sample %s does not parse: %s", qPrintable(name), func.error().message.c_str());
  return *func;
}

std::unique_ptr<gui::MainWindow> makeWindow() {
  QStandardPaths::setTestModeEnabled(true);
  gui::MainWindowOptions options;
  options.noPrompts = true;
  options.persistSettings = false;
  auto w = std::make_unique<gui::MainWindow>(options);
  w->resize(1400, 900);
  w->show();
  return w;
}

bool settle(gui::MainWindow& w) { return w.waitIdle(30000); }

int nodeIndex(gui::MainWindow& w, const std::string& name) {
  const auto& snap = w.tensorIrView()->snapshot();
  if (!snap) return -1;
  for (std::size_t i = 0; i < snap->nodes.size(); ++i)
    if (snap->nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

void clickNode(gui::MainWindow& w, int index) {
  views::TensorIrView* view = w.tensorIrView();
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->nodeCenter(index));
}

/// Selects `loop` by clicking it, applies split with `factors` from the panel, waits.
void splitFromPanel(gui::MainWindow& w, const std::string& loop, const QString& factors) {
  const int index = nodeIndex(w, loop);
  QVERIFY(index >= 0);
  clickNode(w, index);
  QCOMPARE(w.tensorIrView()->selectedNode(), index);
  QVERIFY(w.primitivePanel()->choosePrimitive(QStringLiteral("split")));
  auto* edit = w.primitivePanel()->findChild<QLineEdit*>(QStringLiteral("factors"));
  QVERIFY(edit);
  edit->setText(factors);
  QTest::mouseClick(w.primitivePanel()->findChild<QPushButton*>(QStringLiteral("primitiveApply")), Qt::LeftButton);
  QVERIFY(settle(w));
}

} // namespace loopscape::testing
