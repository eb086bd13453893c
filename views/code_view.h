// CodeView: the generated code of the current program for one target plugin and one of
// its formats (C, LLVM IR, assembly, ...). The view lists the plugins found (disabled ones
// greyed out with the reason as tooltip), shows the text it is given and a status line
// ("compiling…", the toolchain, or the error). Generating the code is the session's job
// (in the background); the view only reports which target and format the user picked.
// The text is syntax-highlighted (code_highlighter.h) and linked to the program's loops:
// the lines the selected loop produced are highlighted and scrolled to, and a click on a
// line asks to select the innermost loop that produced it (loopClicked).
#pragma once

#include "core/ir/expr.h"

#include <QWidget>

#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;

namespace loopscape::views {

class CodeHighlighter;
struct ProgramSnapshot;

/// Lines of the shown code that one loop of the program produced.
struct CodeLoopLines {
  /// The loop's identity: its For's loopVar, which lowering keeps (held, so that the key
  /// stays valid while the text is shown).
  ir::Expr loopVar;
  int firstLine = 0, lastLine = 0; ///< 1-based, inclusive
};

/// What a generated text is: its format and which of its lines each loop produced.
struct CodeMap {
  QString format; ///< "c", "llvm", "asm" (the highlighter's language)
  /// Ordered by first line; a loop may have several ranges (a parallel loop's header and
  /// its outlined body). A loop unrolled or vectorized away has none.
  std::vector<CodeLoopLines> loops;
  /// Why the text's lines are not linked to loops ("LLVM IR lines are not linked to
  /// loops"); empty when the target linked them.
  QString unlinked;
};

/// The loopVar of loop node `index` of `snapshot`; undefined for a block, -1 or no snapshot.
ir::Expr loopVarOf(const ProgramSnapshot* snapshot, int index);
/// The loop node of `snapshot` whose For has `loopVar`, or -1.
int loopNodeOf(const ProgramSnapshot& snapshot, const ir::Expr& loopVar);

struct TargetEntry {
  QString name;
  QString description;
  QStringList formats;
  bool enabled = true;
  QString reason; ///< why a disabled plugin cannot be used
};

/// Fills `combo` with `targets`: item data the name, disabled plugins greyed out with the
/// reason as tooltip (the code, profile and tune views' target choosers).
void fillTargetCombo(QComboBox* combo, const std::vector<TargetEntry>& targets);
/// Selects `name` in a combo fillTargetCombo filled from `targets` if it is listed and
/// enabled; otherwise the first enabled target (nothing when none is).
void selectTarget(QComboBox* combo, const std::vector<TargetEntry>& targets, const QString& name);

class CodeView : public QWidget {
  Q_OBJECT
public:
  explicit CodeView(QWidget* parent = nullptr);

  void setTargets(const std::vector<TargetEntry>& targets);
  /// Selects `name` if it is listed and enabled; otherwise the first enabled target.
  void setCurrentTarget(const QString& name);
  QString currentTarget() const;
  QString currentFormat() const;
  /// Shows `text` (in `map.format`, else the current format) linked by `map`.
  void setCode(const QString& text, const QString& status, CodeMap map = {});
  void setError(const QString& report, const QString& status);
  void setStatus(const QString& status);
  QString code() const;
  QString status() const;
  /// Highlights the lines loop `loopVar` produced (nothing for an undefined Expr: no loop
  /// selected) and scrolls them into view; the status says which lines, or why none.
  void setSelectedLoop(const ir::Expr& loopVar);
  /// The line ranges highlighted for the selected loop (1-based, inclusive).
  std::vector<std::pair<int, int>> highlightedLines() const;
  /// What the status says about the selected loop's lines ("" when no loop is selected).
  QString linkStatus() const { return m_linkStatus; }
  const CodeMap& codeMap() const { return m_map; }
  /// The innermost loop that produced line `line` (1-based), or an undefined Expr.
  ir::Expr loopAtLine(int line) const;
  /// Colours for the dark theme (syntax and the loop highlight).
  void setDark(bool dark);

Q_SIGNALS:
  /// The user picked another target or format.
  void selectionChanged(const QString& target, const QString& format);
  /// The user clicked a line that loop `loopVar` produced.
  void loopClicked(const ir::Expr& loopVar);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void fillFormats();
  void refreshLinks(bool reveal);
  void showStatus();
  CodeHighlighter* m_highlighter;
  CodeMap m_map;
  ir::Expr m_selectedLoop;
  QString m_baseStatus, m_linkStatus;
  bool m_dark = false;
  std::vector<TargetEntry> m_targets;
  QComboBox* m_target;
  QComboBox* m_format;
  QLabel* m_status;
  QPlainTextEdit* m_text;
};

} // namespace loopscape::views
