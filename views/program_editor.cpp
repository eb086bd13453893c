#include "views/program_editor.h"

#include <QHelpEvent>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>

namespace loopscape::views {

namespace {

class LineNumberArea : public QWidget {
public:
  explicit LineNumberArea(ProgramEditor* editor) : QWidget(editor), m_editor(editor) {}
  QSize sizeHint() const override { return {m_editor->lineNumberAreaWidth(), 0}; }

protected:
  void paintEvent(QPaintEvent* event) override { m_editor->paintLineNumbers(event); }

private:
  ProgramEditor* m_editor;
};

} // namespace

ProgramEditor::ProgramEditor(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName(QStringLiteral("programEditor"));
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(10);
  setFont(mono);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(u' ') * 4);
  m_highlighter = new TeHighlighter(document(), TeHighlighter::Language::Te);
  m_lineArea = new LineNumberArea(this);
  m_idle.setSingleShot(true);
  m_idle.setInterval(400);
  connect(&m_idle, &QTimer::timeout, this, [this] { Q_EMIT sourceEdited(toPlainText()); });
  connect(document(), &QTextDocument::contentsChanged, this, [this] {
    if (!m_settingText) m_idle.start();
  });
  connect(this, &QPlainTextEdit::blockCountChanged, this,
          [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy != 0)
      m_lineArea->scroll(0, dy);
    else
      m_lineArea->update(0, rect.y(), m_lineArea->width(), rect.height());
  });
  setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

int ProgramEditor::lineNumberAreaWidth() const {
  int digits = 2;
  for (int n = qMax(1, blockCount()); n >= 10; n /= 10) ++digits;
  return 8 + fontMetrics().horizontalAdvance(u'9') * digits;
}

void ProgramEditor::paintLineNumbers(QPaintEvent* event) {
  QPainter painter(m_lineArea);
  const QPalette pal = palette();
  painter.fillRect(event->rect(), pal.color(QPalette::AlternateBase));
  QSet<int> marked;
  for (const SourceMark& m : m_marks) marked.insert(m.line);
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  while (block.isValid() && top <= event->rect().bottom()) {
    const int height = qRound(blockBoundingRect(block).height());
    if (block.isVisible()) {
      const int number = block.blockNumber() + 1;
      painter.setPen(marked.contains(number) ? QColor(220, 50, 47) : pal.color(QPalette::PlaceholderText));
      painter.drawText(0, top, m_lineArea->width() - 4, height, Qt::AlignRight | Qt::AlignVCenter,
                       QString::number(number));
    }
    block = block.next();
    top += height;
  }
}

void ProgramEditor::resizeEvent(QResizeEvent* e) {
  QPlainTextEdit::resizeEvent(e);
  const QRect cr = contentsRect();
  m_lineArea->setGeometry(QRect(cr.left(), cr.top(), lineNumberAreaWidth(), cr.height()));
}

void ProgramEditor::setSource(const QString& text) {
  m_settingText = true;
  setPlainText(text);
  m_settingText = false;
  m_idle.stop();
}

void ProgramEditor::flushPendingEdit() {
  if (!m_idle.isActive()) return;
  m_idle.stop();
  Q_EMIT sourceEdited(toPlainText());
}

QTextCursor ProgramEditor::cursorFor(const SourceMark& mark) const {
  QTextBlock block = document()->findBlockByNumber(mark.line - 1);
  if (!block.isValid()) return {};
  QTextCursor c(block);
  const int col = qBound(0, mark.column - 1, qMax(0, block.length() - 1));
  c.setPosition(block.position() + col);
  const int len = qMax(1, qMin(mark.length, block.length() - 1 - col));
  c.setPosition(block.position() + col + len, QTextCursor::KeepAnchor);
  return c;
}

void ProgramEditor::setMarks(const std::vector<SourceMark>& marks) {
  m_marks = marks;
  refreshSelections();
  m_lineArea->update();
}

void ProgramEditor::refreshSelections() {
  QList<QTextEdit::ExtraSelection> selections;
  for (const SourceMark& m : m_marks) {
    QTextEdit::ExtraSelection sel;
    sel.cursor = cursorFor(m);
    if (sel.cursor.isNull()) continue;
    sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    sel.format.setUnderlineColor(QColor(220, 50, 47));
    sel.format.setToolTip(m.message);
    selections.push_back(sel);
  }
  setExtraSelections(selections);
}

void ProgramEditor::jumpTo(int line, int column) {
  QTextBlock block = document()->findBlockByNumber(line - 1);
  if (!block.isValid()) return;
  QTextCursor c(block);
  c.setPosition(block.position() + qBound(0, column - 1, qMax(0, block.length() - 1)));
  setTextCursor(c);
  centerCursor();
  setFocus();
}

bool ProgramEditor::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QTextCursor at = cursorForPosition(viewport()->mapFromParent(help->pos()));
    const int line = at.blockNumber() + 1;
    const int column = at.positionInBlock() + 1;
    for (const SourceMark& m : m_marks) {
      if (m.line == line && column >= m.column && column <= m.column + qMax(1, m.length)) {
        QToolTip::showText(help->globalPos(), m.message, this);
        return true;
      }
    }
    QToolTip::hideText();
    e->ignore();
    return true;
  }
  return QPlainTextEdit::event(e);
}

} // namespace loopscape::views
