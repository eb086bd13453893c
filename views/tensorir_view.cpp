#include "views/tensorir_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTextBlock>
#include <QToolTip>

#include <algorithm>
#include <map>

namespace loopscape::views {

TensorIrView::TensorIrView(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName(QStringLiteral("tensorIrView"));
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(10);
  setFont(mono);
  setMouseTracking(true);
  viewport()->setMouseTracking(true);
  m_highlighter = new TeHighlighter(document(), TeHighlighter::Language::TvmScript);
}

void TensorIrView::setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot,
                               std::optional<const ir::StmtNode*> select) {
  struct Kept {
    std::vector<int> position;
    NodeInfo::Kind kind;
  };
  std::optional<Kept> keep;
  if (m_snapshot && m_selected >= 0)
    keep = Kept{m_snapshot->positionOf(m_selected), m_snapshot->nodes[m_selected].kind};
  const int scroll = verticalScrollBar()->value();
  if (m_snapshot && snapshot && m_snapshot->sameProgramAs(*snapshot) && !select) {
    // The analysed copy of the shown state: same text and nodes, so the selection, the
    // cursor and the scroll stay; only the loops' dependence facts are new.
    m_snapshot = std::move(snapshot);
    return;
  }
  m_snapshot = std::move(snapshot);
  m_marks.clear();
  setPlainText(m_snapshot ? QString::fromStdString(m_snapshot->text) : QString());
  verticalScrollBar()->setValue(scroll);
  horizontalScrollBar()->setValue(0);
  m_hovered = -1;
  const int previous = m_selected;
  m_selected = -1;
  if (m_snapshot && select)
    m_selected = *select ? m_snapshot->indexOf(*select) : -1;
  else if (m_snapshot && keep)
    m_selected = m_snapshot->atPosition(keep->position, keep->kind);
  refreshSelections();
  if (m_selected >= 0 && select) {
    QTextCursor c = cursorForNode(m_selected);
    c.setPosition(c.selectionStart());
    setTextCursor(c);
  }
  if (m_selected != previous || keep || select) Q_EMIT nodeSelected(m_selected);
}

void TensorIrView::selectNode(int index) {
  if (!m_snapshot || index >= static_cast<int>(m_snapshot->nodes.size())) index = -1;
  m_selected = index;
  refreshSelections();
  if (index >= 0) {
    // The cursor at the start of the header, so that a long header (an isl range bound)
    // scrolls its beginning into view, not its end.
    QTextCursor c = cursorForNode(index);
    c.setPosition(c.selectionStart());
    setTextCursor(c);
  }
  Q_EMIT nodeSelected(index);
}

QTextCursor TensorIrView::cursorForNode(int index) const {
  const NodeInfo& n = m_snapshot->nodes[index];
  QTextBlock block = document()->findBlockByNumber(n.line - 1);
  QTextCursor c(block);
  c.setPosition(block.position() + n.column - 1);
  c.setPosition(block.position() + n.column - 1 + n.length, QTextCursor::KeepAnchor);
  return c;
}

void TensorIrView::setDark(bool dark) {
  m_dark = dark;
  m_highlighter->setDark(dark);
  refreshSelections();
}

void TensorIrView::setMarks(std::vector<NodeMark> marks) {
  m_marks = std::move(marks);
  refreshSelections();
}

void TensorIrView::refreshSelections() {
  QList<QTextEdit::ExtraSelection> selections;
  // A line whose every node has the same mark is coloured whole; on a line that holds
  // several loops (a T.grid) with different marks, or unmarked ones, only the marked names.
  std::map<int, std::vector<const NodeMark*>> byLine;
  if (m_snapshot)
    for (const NodeMark& m : m_marks)
      if (m.node >= 0 && m.node < static_cast<int>(m_snapshot->nodes.size()))
        byLine[m_snapshot->nodes[m.node].line].push_back(&m);
  for (const auto& [line, marks] : byLine) {
    int nodesOnLine = 0;
    for (const NodeInfo& n : m_snapshot->nodes)
      nodesOnLine += n.line == line ? 1 : 0;
    const bool whole = nodesOnLine == static_cast<int>(marks.size()) &&
                       std::all_of(marks.begin(), marks.end(),
                                   [&](const NodeMark* m) { return m->background == marks.front()->background; });
    for (const NodeMark* m : marks) {
      QTextEdit::ExtraSelection sel;
      if (whole) {
        sel.cursor = QTextCursor(document()->findBlockByNumber(line - 1));
        sel.format.setProperty(QTextFormat::FullWidthSelection, true);
      } else {
        sel.cursor = cursorForNode(m->node);
      }
      sel.format.setBackground(m->background);
      selections.push_back(sel);
      if (whole) break;
    }
  }
  auto add = [&](int index, const QColor& bg) {
    if (!m_snapshot || index < 0) return;
    QTextEdit::ExtraSelection sel;
    sel.cursor = cursorForNode(index);
    sel.format.setBackground(bg);
    selections.push_back(sel);
  };
  const bool dark = m_dark;
  if (m_hovered >= 0 && m_hovered != m_selected) add(m_hovered, dark ? QColor(70, 70, 90) : QColor(225, 230, 245));
  add(m_selected, dark ? QColor(40, 90, 150) : QColor(255, 225, 140));
  setExtraSelections(selections);
}

int TensorIrView::nodeAtViewportPos(const QPoint& pos) const {
  if (!m_snapshot) return -1;
  const QTextCursor c = cursorForPosition(pos);
  // cursorForPosition snaps to the nearest gap; reject clicks right of the line's end.
  const QRect r = cursorRect(c);
  if (pos.x() > r.right() + fontMetrics().horizontalAdvance(u'M')) return -1;
  const int line = c.blockNumber() + 1;
  const int column = c.positionInBlock() + 1;
  int index = m_snapshot->nodeAt(line, column);
  // Clicking just left of a gap position belongs to the previous character.
  if (index < 0 && column > 1) index = m_snapshot->nodeAt(line, column - 1);
  return index;
}

QPoint TensorIrView::nodeCenter(int index) const {
  QTextCursor c = cursorForNode(index);
  QTextCursor start = c;
  start.setPosition(c.selectionStart());
  const QRect r = cursorRect(start);
  const int width = fontMetrics().horizontalAdvance(u'M') * qMin(2, m_snapshot->nodes[index].length);
  return {r.left() + width / 2, r.center().y()};
}

void TensorIrView::mousePressEvent(QMouseEvent* e) {
  QPlainTextEdit::mousePressEvent(e);
  if (e->button() != Qt::LeftButton) return;
  const int index = nodeAtViewportPos(e->position().toPoint());
  if (index < 0) return;
  if (m_pickMode) {
    Q_EMIT nodePicked(index);
    return;
  }
  selectNode(index);
}

void TensorIrView::setPickMode(bool on) {
  m_pickMode = on;
  viewport()->setCursor(on ? Qt::CrossCursor : Qt::IBeamCursor);
}

void TensorIrView::mouseMoveEvent(QMouseEvent* e) {
  QPlainTextEdit::mouseMoveEvent(e);
  const int index = nodeAtViewportPos(e->position().toPoint());
  viewport()->setCursor(index >= 0 ? Qt::PointingHandCursor : m_pickMode ? Qt::CrossCursor : Qt::IBeamCursor);
  if (index != m_hovered) {
    m_hovered = index;
    refreshSelections();
  }
}

QString TensorIrView::describeNode(int index) const {
  if (!m_snapshot || index < 0) return {};
  for (const NodeMark& m : m_marks)
    if (m.node == index && !m.note.isEmpty())
      return describeNodeFacts(index) + QStringLiteral("<hr>") +
             m.note.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>"));
  return describeNodeFacts(index);
}

QString TensorIrView::describeNodeFacts(int index) const {
  const NodeInfo& n = m_snapshot->nodes[index];
  if (n.kind == NodeInfo::Kind::Loop) {
    QString s = QStringLiteral("<b>loop %1</b><br>extent: %2").arg(QString::fromStdString(n.name).toHtmlEscaped(),
                                                               QString::fromStdString(n.extent).toHtmlEscaped());
    if (n.min != "0") s += QStringLiteral(" (from %1)").arg(QString::fromStdString(n.min).toHtmlEscaped());
    s += QStringLiteral("<br>kind: %1").arg(QString::fromStdString(n.loopKind));
    if (!n.threadTag.empty()) s += QStringLiteral(" (%1)").arg(QString::fromStdString(n.threadTag));
    if (n.parallel) {
      s += *n.parallel ? QStringLiteral("<br>parallel: yes (carries no dependence)")
                       : QStringLiteral("<br>parallel: no, carries:");
      for (const std::string& d : n.carried) s += QStringLiteral("<br>&nbsp;&nbsp;") + QString::fromStdString(d).toHtmlEscaped();
    } else if (!m_snapshot->dependenceError.empty()) {
      s += QStringLiteral("<br>dependences: unavailable (%1)")
               .arg(QString::fromStdString(m_snapshot->dependenceError).toHtmlEscaped());
    } else if (m_snapshot->analysisPending) {
      s += QStringLiteral("<br>dependences: being analysed");
    }
    if (!n.blocksBelow.empty()) {
      QStringList blocks;
      for (const std::string& b : n.blocksBelow) blocks << QString::fromStdString(b).toHtmlEscaped();
      s += QStringLiteral("<br>blocks: %1").arg(blocks.join(QStringLiteral(", ")));
    }
    return s;
  }
  QString s = QStringLiteral("<b>block %1</b>").arg(QString::fromStdString(n.name).toHtmlEscaped());
  if (n.isRoot) return s + QStringLiteral(" (root)");
  s += n.isReduction ? QStringLiteral("<br>reduction") : QStringLiteral("<br>spatial");
  auto list = [](const std::vector<std::string>& v) {
    QStringList out;
    for (const std::string& x : v) out << QString::fromStdString(x).toHtmlEscaped();
    return out.isEmpty() ? QStringLiteral("—") : out.join(QStringLiteral(", "));
  };
  s += QStringLiteral("<br>reads: %1<br>writes: %2").arg(list(n.reads), list(n.writes));
  QStringList loops;
  for (int l : n.loopsAbove) loops << QString::fromStdString(m_snapshot->nodes[l].name).toHtmlEscaped();
  if (!loops.isEmpty()) s += QStringLiteral("<br>loops: %1").arg(loops.join(QStringLiteral(", ")));
  return s;
}

bool TensorIrView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int index = nodeAtViewportPos(help->pos());
    if (index >= 0)
      QToolTip::showText(help->globalPos(), describeNode(index), viewport());
    else
      QToolTip::hideText();
    return true;
  }
  if (e->type() == QEvent::Leave && m_hovered >= 0) {
    m_hovered = -1;
    refreshSelections();
  }
  return QPlainTextEdit::viewportEvent(e);
}

} // namespace loopscape::views
