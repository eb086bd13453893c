#include "views/code_view.h"

#include "core/ir/stmt.h"
#include "views/code_highlighter.h"
#include "views/program_snapshot.h"
#include "views/theme.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

namespace loopscape::views {

ir::Expr loopVarOf(const ProgramSnapshot* snapshot, int index) {
  if (!snapshot || index < 0 || index >= static_cast<int>(snapshot->nodes.size())) return {};
  const NodeInfo& n = snapshot->nodes[index];
  if (n.kind != NodeInfo::Kind::Loop || !n.node || n.node->kind != ir::StmtKind::For) return {};
  return static_cast<const ir::For*>(n.node)->loopVar;
}

int loopNodeOf(const ProgramSnapshot& snapshot, const ir::Expr& loopVar) {
  if (!loopVar.defined()) return -1;
  for (std::size_t i = 0; i < snapshot.nodes.size(); ++i)
    if (loopVarOf(&snapshot, static_cast<int>(i)).get() == loopVar.get()) return static_cast<int>(i);
  return -1;
}

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
  m_text->viewport()->installEventFilter(this);
  m_highlighter = new CodeHighlighter(m_text->document());
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

void CodeView::setCode(const QString& text, const QString& status, CodeMap map) {
  const int scroll = m_text->verticalScrollBar()->value();
  if (map.format.isEmpty()) map.format = currentFormat();
  m_map = std::move(map);
  m_highlighter->setLanguage(CodeHighlighter::languageOf(m_map.format));
  m_text->setPlainText(text);
  m_text->verticalScrollBar()->setValue(scroll);
  m_baseStatus = status;
  refreshLinks(/*reveal=*/true);
}

void CodeView::setError(const QString& report, const QString& status) {
  m_map = CodeMap{};
  m_highlighter->setLanguage(CodeHighlighter::Language::Plain);
  m_text->setPlainText(report);
  m_baseStatus = QStringLiteral("<span style='color:#d03030'>%1</span>").arg(status.toHtmlEscaped());
  refreshLinks(/*reveal=*/false);
}

void CodeView::setStatus(const QString& status) {
  m_baseStatus = status;
  showStatus();
}

void CodeView::showStatus() {
  m_status->setText(m_linkStatus.isEmpty() ? m_baseStatus : m_baseStatus + QStringLiteral(" — ") + m_linkStatus);
}

QString CodeView::code() const { return m_text->toPlainText(); }
QString CodeView::status() const { return m_status->text(); }

void CodeView::setSelectedLoop(const ir::Expr& loopVar) {
  const bool changed = loopVar.get() != m_selectedLoop.get();
  m_selectedLoop = loopVar;
  refreshLinks(/*reveal=*/changed);
}

std::vector<std::pair<int, int>> CodeView::highlightedLines() const {
  std::vector<std::pair<int, int>> out;
  if (!m_selectedLoop.defined()) return out;
  for (const CodeLoopLines& l : m_map.loops)
    if (l.loopVar.get() == m_selectedLoop.get()) out.emplace_back(l.firstLine, l.lastLine);
  return out;
}

ir::Expr CodeView::loopAtLine(int line) const {
  const CodeLoopLines* best = nullptr;
  for (const CodeLoopLines& l : m_map.loops)
    if (l.firstLine <= line && line <= l.lastLine &&
        (!best || l.lastLine - l.firstLine < best->lastLine - best->firstLine))
      best = &l;
  return best ? best->loopVar : ir::Expr();
}

void CodeView::setDark(bool dark) {
  m_dark = dark;
  m_highlighter->setDark(dark);
  refreshLinks(/*reveal=*/false);
}

void CodeView::refreshLinks(bool reveal) {
  const std::vector<std::pair<int, int>> ranges = highlightedLines();
  const CodeColors colors = codeColors(m_dark);
  QList<QTextEdit::ExtraSelection> selections;
  QTextDocument* doc = m_text->document();
  for (const auto& [first, last] : ranges) {
    for (int line = first; line <= last && line <= doc->blockCount(); ++line) {
      QTextEdit::ExtraSelection sel;
      sel.cursor = QTextCursor(doc->findBlockByNumber(line - 1));
      sel.format.setBackground(line == first ? colors.linkedFirst : colors.linkedLines);
      sel.format.setProperty(QTextFormat::FullWidthSelection, true);
      selections.push_back(sel);
    }
  }
  m_text->setExtraSelections(selections);

  m_linkStatus.clear();
  // (An error report has no format: nothing to say about its lines.)
  if (const auto* var = m_selectedLoop.as<ir::Var>(); var && !m_map.format.isEmpty()) {
    const QString name = QString::fromStdString(var->name);
    if (!m_map.unlinked.isEmpty()) {
      m_linkStatus = m_map.unlinked;
    } else if (ranges.empty()) {
      m_linkStatus = QStringLiteral("loop %1 has no lines of its own here (unrolled or vectorized)").arg(name);
    } else {
      QStringList spans;
      for (const auto& [first, last] : ranges)
        spans << QStringLiteral("%1–%2").arg(first).arg(last);
      m_linkStatus = QStringLiteral("loop %1: lines %2").arg(name, spans.join(QStringLiteral(", ")));
    }
  }
  showStatus();
  if (!reveal || ranges.empty()) return;
  // Scroll the first range into view unless it is already in view.
  const auto [first, last] = ranges.front();
  const QTextBlock firstBlock = doc->findBlockByNumber(first - 1);
  const QTextBlock lastBlock = doc->findBlockByNumber(std::min(last, doc->blockCount()) - 1);
  const QRect top = m_text->cursorRect(QTextCursor(firstBlock));
  const QRect bottom = m_text->cursorRect(QTextCursor(lastBlock));
  const int height = m_text->viewport()->height();
  if (top.top() >= 0 && bottom.bottom() <= height) return;
  m_text->setTextCursor(QTextCursor(firstBlock));
  // NoWrap: the scroll bar counts lines. Up to two lines of context above the loop when
  // the whole loop still fits below them.
  const int visible = height / std::max(1, m_text->fontMetrics().lineSpacing());
  const int context = std::clamp((visible - (last - first + 1)) / 2, 0, 2);
  m_text->verticalScrollBar()->setValue(std::max(0, first - 1 - context));
}

bool CodeView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_text->viewport() && event->type() == QEvent::MouseButtonRelease) {
    const auto* e = static_cast<QMouseEvent*>(event);
    if (e->button() == Qt::LeftButton && !m_text->textCursor().hasSelection()) {
      const int line = m_text->cursorForPosition(e->position().toPoint()).blockNumber() + 1;
      if (const ir::Expr loop = loopAtLine(line); loop.defined()) Q_EMIT loopClicked(loop);
    }
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace loopscape::views
