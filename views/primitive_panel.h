// PrimitivePanel: the schedule primitives that apply to the selected loop or block, and a
// parameter form for the chosen one, built from its InstructionKind row alone (what it
// applies to, its description, its input and attribute names, their ParamKinds, defaults
// and help); the panel names no primitive. Parameters get editors by kind: the selection
// itself, factors with the inferred None factor shown live, a chain of nested loops (how
// many), the loops of a block (drag to order, uncheck to leave out), a target loop picked
// from a list or by clicking it in the TensorIR view, buffer and scope choices, loop and
// block names for the polyhedral family, literals. Apply emits a PrimitiveRequest; the
// panel changes no state itself.
#pragma once

#include "views/primitive_request.h"

#include <QWidget>

#include <functional>

class QFormLayout;
class QLabel;
class QListWidget;
class QPushButton;
class QScrollArea;

namespace loopscape::schedule {
struct InstructionKind;
}

namespace loopscape::views {

class PrimitivePanel : public QWidget {
  Q_OBJECT
public:
  explicit PrimitivePanel(QWidget* parent = nullptr);

  /// Shows the primitives for node `index` of `snapshot` (-1: nothing selected).
  void setSelection(std::shared_ptr<const ProgramSnapshot> snapshot, int index);
  /// Names of the primitives listed for the current selection, in registry order.
  QStringList primitives() const;
  /// Every primitive the panel can offer (for menus), in registry order.
  static std::vector<const schedule::InstructionKind*> catalogue();
  /// Chooses `name` in the list; false when it does not apply to the selection.
  bool choosePrimitive(const QString& name);
  QString currentPrimitive() const;
  /// The form's editor for input or attribute `name` (for tests and scripting).
  QWidget* editor(const QString& name) const;
  /// Builds the request from the form; error text when the form is invalid.
  std::variant<PrimitiveRequest, QString> buildRequest() const;
  /// True while a target-loop editor waits for a click in the TensorIR view.
  bool isPicking() const;
  /// Delivers the picked node to the waiting editor.
  void pickNode(int index);
  QListWidget* list() const { return m_list; }

public Q_SLOTS:
  /// Builds the request and emits applyRequested (or shows the form error).
  void apply();
  /// Builds the request and emits previewRequested (or shows the form error).
  void preview();

Q_SIGNALS:
  void applyRequested(const loopscape::views::PrimitiveRequest& request);
  /// Preview: show the step's effect (the iteration-space view) without applying it.
  void previewRequested(const loopscape::views::PrimitiveRequest& request);
  /// A target-loop editor started (true) or stopped (false) waiting for a click.
  void pickingChanged(bool picking);

private:
  struct Field {
    QString name;
    bool isInput = true;
    QWidget* widget = nullptr;
    std::function<std::variant<RequestArg, QString>()> value;
    std::function<void(int)> pick; ///< target-loop editors only
    std::function<bool()> picking;
  };
  void rebuildForm();
  /// Keeps the scrolled form as tall as its rows need at the viewport's width.
  void fitFormHeight();
  bool eventFilter(QObject* watched, QEvent* event) override;
  Field makeInputField(const schedule::InstructionKind& kind, std::size_t i);
  Field makeAttrField(const schedule::InstructionKind& kind, std::size_t i);
  /// Row of primitive `name` in the list; -1 when not listed.
  int rowOf(const QString& name) const;
  const NodeInfo* selected() const;

  std::shared_ptr<const ProgramSnapshot> m_snapshot;
  int m_index = -1;
  QLabel* m_selectionLabel;
  QListWidget* m_list;
  QWidget* m_formHost;
  QWidget* m_formPane = nullptr;
  QScrollArea* m_formScroll = nullptr;
  QFormLayout* m_form;
  QLabel* m_error;
  QPushButton* m_apply;
  QPushButton* m_preview;
  std::vector<Field> m_fields;
};

} // namespace loopscape::views
