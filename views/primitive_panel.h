// PrimitivePanel: the schedule primitives that apply to the selected loop or block, and a
// parameter form for the chosen one, built from its InstructionKind row (input names,
// attributes and their defaults). Inputs get editors by meaning: the selection itself,
// split factors with the inferred None factor shown live, the loops of fuse (how many of
// the nested chain) and reorder (drag to order, uncheck to leave out), a target loop
// picked from a list or by clicking it in the TensorIR view (compute_at,
// decompose_reduction), buffer and scope choices (cache_read/cache_write/set_scope),
// literals. Apply emits a PrimitiveRequest; the panel changes no state itself.
#pragma once

#include "views/primitive_request.h"

#include <QWidget>

#include <functional>
#include <string_view>

class QFormLayout;
class QLabel;
class QListWidget;
class QPushButton;

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

Q_SIGNALS:
  void applyRequested(const loopscape::views::PrimitiveRequest& request);
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
  Field makeInputField(const schedule::InstructionKind& kind, std::size_t i);
  Field makeAttrField(const schedule::InstructionKind& kind, std::size_t i);
  /// Tooltip of attribute `attr` of `primitive` (poly_auto's isl options), empty if none.
  static QString attrHint(std::string_view primitive, std::string_view attr);
  const NodeInfo* selected() const;

  std::shared_ptr<const ProgramSnapshot> m_snapshot;
  int m_index = -1;
  QLabel* m_selectionLabel;
  QListWidget* m_list;
  QWidget* m_formHost;
  QFormLayout* m_form;
  QLabel* m_error;
  QPushButton* m_apply;
  std::vector<Field> m_fields;
};

} // namespace loopscape::views
