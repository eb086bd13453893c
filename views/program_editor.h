// ProgramEditor: the source of the program (.te or TVMScript) with line numbers and syntax
// highlighting. Parse errors are underlined at their location (wave underline) and the
// message shows as a tooltip over the underlined text. User edits are reported once the
// user has paused typing (`idleDelayMs`), so the session re-parses once per pause, not
// per keystroke. The editor owns only its text; the session decides what it means.
#pragma once

#include "views/te_highlighter.h"

#include <QPlainTextEdit>
#include <QTimer>

namespace loopscape::views {

/// A location in the source to mark: 1-based line and column, length in characters.
struct SourceMark {
  int line = 0;
  int column = 0;
  int length = 1;
  QString message;
};

class ProgramEditor : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit ProgramEditor(QWidget* parent = nullptr);

  /// Replaces the text without reporting an edit.
  void setSource(const QString& text);
  QString source() const { return toPlainText(); }
  void setMarks(const std::vector<SourceMark>& marks);
  const std::vector<SourceMark>& marks() const { return m_marks; }
  /// Moves the cursor to (line, column), 1-based, and focuses the editor.
  void jumpTo(int line, int column);
  void setIdleDelay(int ms) { m_idle.setInterval(ms); }
  /// Reports an edit still waiting for the pause now (before saving, closing, opening:
  /// the last keystrokes are never dropped).
  void flushPendingEdit();
  void setDark(bool dark) { m_highlighter->setDark(dark); }
  /// The source's language (.te or TVMScript), for highlighting.
  void setLanguage(TeHighlighter::Language language) { m_highlighter->setLanguage(language); }
  TeHighlighter::Language language() const { return m_highlighter->language(); }
  int lineNumberAreaWidth() const;
  void paintLineNumbers(QPaintEvent* event);

Q_SIGNALS:
  /// The user changed the text and then paused.
  void sourceEdited(const QString& text);

protected:
  bool event(QEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

private:
  void refreshSelections();
  QTextCursor cursorFor(const SourceMark& mark) const;
  TeHighlighter* m_highlighter;
  QWidget* m_lineArea;
  QTimer m_idle;
  bool m_settingText = false;
  std::vector<SourceMark> m_marks;
};

} // namespace loopscape::views
