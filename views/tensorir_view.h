// TensorIrView: the current program printed as TVMScript, read-only and monospace.
// Every printed loop and block header is clickable: a click selects the node (it is
// highlighted and `nodeSelected` fires with its index in the snapshot), hovering a loop
// shows its extent and kind, hovering a block its iterators' kind and the buffers it
// accesses. The view adapts a ProgramSnapshot and keeps nothing else.
#pragma once

#include "views/program_snapshot.h"
#include "views/te_highlighter.h"

#include <QPlainTextEdit>

#include <memory>
#include <optional>
#include <vector>

namespace loopscape::views {

class TensorIrView : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit TensorIrView(QWidget* parent = nullptr);

  /// Shows `snapshot`. With `select`, that node becomes the selection (null or absent:
  /// nothing is selected); without, the selection is kept when the new program has a node
  /// of the same kind and name at the same position in the tree, otherwise cleared.
  void setSnapshot(std::shared_ptr<const ProgramSnapshot> snapshot,
                   std::optional<const ir::StmtNode*> select = std::nullopt);
  const std::shared_ptr<const ProgramSnapshot>& snapshot() const { return m_snapshot; }
  int selectedNode() const { return m_selected; }
  /// Selects node `index` (-1 clears) and emits nodeSelected.
  void selectNode(int index);
  /// The tooltip text for node `index` (what hovering shows).
  QString describeNode(int index) const;
  /// The snapshot node under a viewport position, or -1.
  int nodeAtViewportPos(const QPoint& pos) const;
  /// Viewport position of the middle of node `index`'s header (for tests and tools).
  QPoint nodeCenter(int index) const;
  /// Colours for the dark theme: the syntax and the selection and hover highlights (at
  /// once, also for the current selection).
  void setDark(bool dark);
  /// A node's line marked with a background and an explanation (the Compare window's
  /// structural diff): the whole line is coloured and hovering the node adds `note`.
  struct NodeMark {
    int node = -1;
    QColor background;
    QString note;
  };
  /// Replaces the marks (kept until the next call; cleared by setSnapshot with another
  /// program).
  void setMarks(std::vector<NodeMark> marks);
  const std::vector<NodeMark>& marks() const { return m_marks; }
  /// In pick mode a click reports the node through nodePicked and keeps the selection
  /// (the primitive panel is waiting for a target loop).
  void setPickMode(bool on);
  bool pickMode() const { return m_pickMode; }

Q_SIGNALS:
  void nodeSelected(int index);
  void nodePicked(int index);

protected:
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  bool viewportEvent(QEvent* e) override;

private:
  void refreshSelections();
  QString describeNodeFacts(int index) const;
  QTextCursor cursorForNode(int index) const;
  std::shared_ptr<const ProgramSnapshot> m_snapshot;
  TeHighlighter* m_highlighter;
  std::vector<NodeMark> m_marks;
  int m_selected = -1;
  int m_hovered = -1;
  bool m_pickMode = false;
  bool m_dark = false;
};

} // namespace loopscape::views
