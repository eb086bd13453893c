#include "views/code_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace loopscape::views {

void fillTargetCombo(QComboBox* combo, const std::vector<TargetEntry>& targets) {
  combo->clear();
  auto* model = qobject_cast<QStandardItemModel*>(combo->model());
  for (const TargetEntry& t : targets) {
    combo->addItem(t.enabled ? t.name : t.name + QStringLiteral(" (disabled)"), t.name);
    QStandardItem* item = model->item(combo->count() - 1);
    item->setToolTip(t.enabled ? t.description : t.reason);
    if (!t.enabled) item->setEnabled(false);
  }
}

void selectTarget(QComboBox* combo, const std::vector<TargetEntry>& targets, const QString& name) {
  int pick = -1;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (!targets[i].enabled) continue;
    if (pick < 0) pick = static_cast<int>(i);
    if (targets[i].name == name) {
      pick = static_cast<int>(i);
      break;
    }
  }
  if (pick >= 0 && pick != combo->currentIndex()) combo->setCurrentIndex(pick);
}

CodeView::CodeView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("codeView"));
  m_target = new QComboBox(this);
  m_target->setObjectName(QStringLiteral("codeTarget"));
  m_format = new QComboBox(this);
  m_format->setObjectName(QStringLiteral("codeFormat"));
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("codeStatus"));
  m_text = new QPlainTextEdit(this);
  m_text->setObjectName(QStringLiteral("codeText"));
  m_text->setReadOnly(true);
  m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(9);
  m_text->setFont(mono);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Target:"), this));
  bar->addWidget(m_target);
  bar->addWidget(new QLabel(QStringLiteral("Format:"), this));
  bar->addWidget(m_format);
  bar->addWidget(m_status, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  layout->addLayout(bar);
  layout->addWidget(m_text, 1);
  connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
    fillFormats();
    Q_EMIT selectionChanged(currentTarget(), currentFormat());
  });
  connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
    if (!m_format->signalsBlocked()) Q_EMIT selectionChanged(currentTarget(), currentFormat());
  });
  setStatus(QStringLiteral("No target plugins found."));
}

void CodeView::setTargets(const std::vector<TargetEntry>& targets) {
  m_targets = targets;
  const QSignalBlocker block(m_target);
  fillTargetCombo(m_target, targets);
  fillFormats();
  if (targets.empty()) setStatus(QStringLiteral("No target plugins found."));
}

void CodeView::setCurrentTarget(const QString& name) { selectTarget(m_target, m_targets, name); }

void CodeView::fillFormats() {
  const QSignalBlocker block(m_format);
  const QString previous = m_format->currentText();
  m_format->clear();
  const int i = m_target->currentIndex();
  if (i < 0 || i >= static_cast<int>(m_targets.size())) return;
  m_format->addItems(m_targets[i].formats);
  const int keep = m_format->findText(previous);
  if (keep >= 0) m_format->setCurrentIndex(keep);
}

QString CodeView::currentTarget() const { return m_target->currentData().toString(); }
QString CodeView::currentFormat() const { return m_format->currentText(); }

void CodeView::setCode(const QString& text, const QString& status) {
  const int scroll = m_text->verticalScrollBar()->value();
  m_text->setPlainText(text);
  m_text->verticalScrollBar()->setValue(scroll);
  setStatus(status);
}

void CodeView::setError(const QString& report, const QString& status) {
  m_text->setPlainText(report);
  setStatus(QStringLiteral("<span style='color:#d03030'>%1</span>").arg(status.toHtmlEscaped()));
}

void CodeView::setStatus(const QString& status) { m_status->setText(status); }
QString CodeView::code() const { return m_text->toPlainText(); }
QString CodeView::status() const { return m_status->text(); }

} // namespace loopscape::views
