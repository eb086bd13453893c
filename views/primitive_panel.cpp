#include "views/primitive_panel.h"

#include "core/schedule/instruction.h"
#include "core/schedule/trace_script.h"
#include "views/qt_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace loopscape::views {

namespace {

using schedule::InstructionKind;
using schedule::TraceValue;

using schedule::AppliesTo;
using schedule::ParamKind;

QString nodeLabel(const ProgramSnapshot& snap, int index) {
  const NodeInfo& n = snap.nodes[index];
  if (n.kind == NodeInfo::Kind::Block) return QStringLiteral("block %1").arg(qs(n.name));
  QString s = QStringLiteral("loop %1 (%2").arg(qs(n.name), qs(n.extent));
  if (n.loopKind != "serial") s += QStringLiteral(", ") + qs(n.loopKind);
  if (!n.blocksBelow.empty()) s += QStringLiteral("; ") + qs(n.blocksBelow.front());
  return s + u')';
}

/// A combo box of the form that is as wide as the form allows, not as its longest item
/// (loop labels can carry long isl bounds); the items' full text is their tooltip.
QComboBox* formCombo(QWidget* parent) {
  auto* combo = new QComboBox(parent);
  combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo->setMinimumContentsLength(16);
  return combo;
}

bool appliesTo(const InstructionKind& kind, const NodeInfo& n) {
  switch (kind.appliesTo) {
  case AppliesTo::Nothing: return false;
  case AppliesTo::Loop: return n.kind == NodeInfo::Kind::Loop;
  case AppliesTo::Block: return n.kind == NodeInfo::Kind::Block;
  case AppliesTo::BlockOrLoop: return true;
  }
  return false;
}

QStringList qsList(const std::vector<std::string_view>& items) {
  QStringList out;
  for (std::string_view s : items)
    out << qs(s);
  return out;
}

} // namespace

PrimitivePanel::PrimitivePanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("primitivePanel"));
  m_selectionLabel = new QLabel(this);
  m_selectionLabel->setObjectName(QStringLiteral("primitiveSelection"));
  m_selectionLabel->setWordWrap(true);
  m_list = new QListWidget(this);
  m_list->setObjectName(QStringLiteral("primitiveList"));
  m_list->setMinimumHeight(120);
  m_formHost = new QWidget(this);
  m_form = new QFormLayout(m_formHost);
  m_form->setContentsMargins(0, 0, 0, 0);
  m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  m_error = new QLabel(this);
  m_error->setObjectName(QStringLiteral("primitiveFormError"));
  m_error->setWordWrap(true);
  m_error->setStyleSheet(QStringLiteral("color: #d03030"));
  m_apply = new QPushButton(QStringLiteral("Apply"), this);
  m_apply->setObjectName(QStringLiteral("primitiveApply"));
  m_apply->setToolTip(QStringLiteral("Apply the primitive (Ctrl+Return)"));
  m_preview = new QPushButton(QStringLiteral("Preview"), this);
  m_preview->setObjectName(QStringLiteral("primitivePreview"));
  m_preview->setToolTip(
      QStringLiteral("Draw the iteration space under the step before applying it (Ctrl+Shift+Return)"));
  // The form and its error scroll below the list, Apply stays in view: on a short screen
  // (1280x800) the dock is shorter than the form, and a plain layout would overlap rows.
  auto* formPane = m_formPane = new QWidget(this);
  auto* formLayout = new QVBoxLayout(formPane);
  formLayout->setContentsMargins(0, 0, 0, 0);
  formLayout->addWidget(m_formHost);
  formLayout->addWidget(m_error);
  formLayout->addStretch(1);
  auto* scroll = m_formScroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("primitiveFormScroll"));
  scroll->setWidget(formPane);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->viewport()->installEventFilter(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_selectionLabel);
  layout->addWidget(m_list, 2);
  layout->addWidget(scroll, 3);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_preview);
  buttons->addWidget(m_apply, 1);
  layout->addLayout(buttons);
  connect(m_list, &QListWidget::currentRowChanged, this, [this] { rebuildForm(); });
  connect(m_apply, &QPushButton::clicked, this, &PrimitivePanel::apply);
  connect(m_preview, &QPushButton::clicked, this, &PrimitivePanel::preview);
  setSelection(nullptr, -1);
}

std::vector<const InstructionKind*> PrimitivePanel::catalogue() {
  std::vector<const InstructionKind*> out;
  for (const InstructionKind* k : schedule::instructionKinds())
    if (k->appliesTo != AppliesTo::Nothing) out.push_back(k);
  return out;
}

const NodeInfo* PrimitivePanel::selected() const {
  return m_snapshot && m_index >= 0 ? &m_snapshot->nodes[m_index] : nullptr;
}

void PrimitivePanel::setSelection(std::shared_ptr<const ProgramSnapshot> snapshot, int index) {
  const QString previous = currentPrimitive();
  m_snapshot = std::move(snapshot);
  m_index = m_snapshot && index >= 0 && index < static_cast<int>(m_snapshot->nodes.size()) ? index : -1;
  const NodeInfo* n = selected();
  m_list->blockSignals(true);
  m_list->clear();
  if (n == nullptr || (n->kind == NodeInfo::Kind::Block && n->isRoot)) {
    m_selectionLabel->setText(n == nullptr ? QStringLiteral("Click a loop or a block in the TensorIR view.")
                                           : QStringLiteral("The root block takes no primitives; pick a loop "
                                                            "or a block inside it."));
  } else {
    m_selectionLabel->setText(QStringLiteral("<b>%1</b>").arg(nodeLabel(*m_snapshot, m_index).toHtmlEscaped()));
    // The everyday primitives first (by their rank), the rest in registry order.
    std::vector<const InstructionKind*> kinds = catalogue();
    std::stable_sort(kinds.begin(), kinds.end(),
                     [](const InstructionKind* a, const InstructionKind* b) { return a->panelRank < b->panelRank; });
    for (const InstructionKind* k : kinds) {
      if (!appliesTo(*k, *n)) continue;
      auto* item = new QListWidgetItem(qs(k->label()), m_list);
      item->setToolTip(qs(k->description));
      item->setData(Qt::UserRole, qs(k->name));
    }
  }
  m_list->blockSignals(false);
  if (m_list->count() > 0) {
    const int found = rowOf(previous);
    m_list->setCurrentRow(found < 0 ? 0 : found);
  }
  rebuildForm();
}

QStringList PrimitivePanel::primitives() const {
  QStringList out;
  for (int i = 0; i < m_list->count(); ++i)
    out << m_list->item(i)->data(Qt::UserRole).toString();
  return out;
}

int PrimitivePanel::rowOf(const QString& name) const {
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->data(Qt::UserRole).toString() == name) return i;
  return -1;
}

bool PrimitivePanel::choosePrimitive(const QString& name) {
  const int row = rowOf(name);
  if (row < 0) return false;
  m_list->setCurrentRow(row);
  return true;
}

QString PrimitivePanel::currentPrimitive() const {
  return m_list->currentItem() != nullptr ? m_list->currentItem()->data(Qt::UserRole).toString() : QString();
}

QWidget* PrimitivePanel::editor(const QString& name) const {
  for (const Field& f : m_fields)
    if (f.name == name) return f.widget;
  return nullptr;
}

bool PrimitivePanel::isPicking() const {
  for (const Field& f : m_fields)
    if (f.picking && f.picking()) return true;
  return false;
}

void PrimitivePanel::pickNode(int index) {
  for (const Field& f : m_fields)
    if (f.picking && f.picking()) f.pick(index);
}

void PrimitivePanel::rebuildForm() {
  const bool wasPicking = isPicking();
  while (m_form->rowCount() > 0) m_form->removeRow(0);
  if (wasPicking) Q_EMIT pickingChanged(false);
  m_fields.clear();
  m_error->clear();
  const InstructionKind* kind = schedule::findInstructionKind(currentPrimitive().toStdString());
  m_apply->setEnabled(kind != nullptr && selected() != nullptr);
  m_preview->setEnabled(m_apply->isEnabled());
  if (kind == nullptr || selected() == nullptr) return;
  for (std::size_t i = 0; i < kind->inputNames.size(); ++i) m_fields.push_back(makeInputField(*kind, i));
  for (std::size_t i = 0; i < kind->attrs.size(); ++i) {
    m_fields.push_back(makeAttrField(*kind, i));
    if (const std::string_view help = kind->attrs[i].help; !help.empty()) m_fields.back().widget->setToolTip(qs(help));
  }
  for (const Field& f : m_fields)
    m_form->addRow(f.name + u':', f.widget);
  fitFormHeight();
}

void PrimitivePanel::fitFormHeight() {
  // The scrolled form never shorter than its rows need at the viewport's width: the dark
  // theme's style at 1280x800 otherwise squeezed the rows over each other.
  QLayout* layout = m_formPane->layout();
  const int width = m_formScroll->viewport()->width();
  layout->activate();
  const int needed =
      layout->hasHeightForWidth() ? layout->totalHeightForWidth(width) : layout->totalMinimumSize().height();
  m_formPane->setMinimumHeight(std::max(needed, layout->totalMinimumSize().height()));
}

bool PrimitivePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_formScroll->viewport() && event->type() == QEvent::Resize) fitFormHeight();
  return QWidget::eventFilter(watched, event);
}

PrimitivePanel::Field PrimitivePanel::makeInputField(const InstructionKind& kind, std::size_t i) {
  const ProgramSnapshot& snap = *m_snapshot;
  const NodeInfo& sel = snap.nodes[m_index];
  const ir::StmtNode* selNode = sel.node;
  const ParamKind paramKind = kind.inputSpecs[i].kind;
  Field f;
  f.name = qs(kind.inputNames[i]);
  f.isInput = true;

  if (paramKind == ParamKind::Selection) {
    // A loop's extent can be a long isl bound: elide it (the whole label is then the tooltip,
    // and the panel's header wraps it) rather than widen the dock past small screens.
    const QString text = nodeLabel(snap, m_index);
    constexpr qsizetype kMaxShown = 48;
    auto* label = new QLabel(text, m_formHost);
    if (text.size() > kMaxShown) {
      label->setText(text.left(kMaxShown - 1) + QChar(0x2026));
      label->setToolTip(text);
    }
    f.widget = label;
    f.value = [selNode]() -> std::variant<RequestArg, QString> { return RequestArg{selNode}; };
    return f;
  }
  if (paramKind == ParamKind::SiblingLoopNames) {
    auto* combo = formCombo(m_formHost);
    combo->setObjectName(QStringLiteral("polyFuseWith"));
    for (std::size_t n = 0; n < snap.nodes.size(); ++n)
      if (snap.nodes[n].kind == NodeInfo::Kind::Loop && snap.nodes[n].parent == sel.parent &&
          static_cast<int>(n) != m_index)
        combo->addItem(qs(snap.nodes[n].name));
    auto* box = new QWidget(m_formHost);
    auto* h = new QHBoxLayout(box);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(new QLabel(qs(sel.name) + QStringLiteral(" with"), box));
    h->addWidget(combo, 1);
    f.widget = box;
    const std::string first = sel.name;
    f.value = [combo, first]() -> std::variant<RequestArg, QString> {
      if (combo->currentText().isEmpty()) return QStringLiteral("the loop has no sibling loop to fuse with");
      return RequestArg{TraceValue(schedule::TraceList{first, combo->currentText().toStdString()})};
    };
    return f;
  }
  if (paramKind == ParamKind::LoopChain) {
    const std::vector<int> chain = snap.loopChain(m_index);
    auto* spin = new QSpinBox(m_formHost);
    spin->setRange(2, std::max<int>(2, static_cast<int>(chain.size())));
    spin->setValue(2);
    auto* shown = new QLabel(m_formHost);
    auto update = [spin, shown, chain, snapshot = m_snapshot] {
      QStringList names;
      for (int k = 0; k < spin->value() && k < static_cast<int>(chain.size()); ++k)
        names << qs(snapshot->nodes[chain[k]].name);
      shown->setText(names.join(QStringLiteral(", ")));
    };
    update();
    connect(spin, &QSpinBox::valueChanged, shown, update);
    auto* box = new QWidget(m_formHost);
    auto* h = new QHBoxLayout(box);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(spin);
    h->addWidget(shown, 1);
    spin->setObjectName(QStringLiteral("fuseCount"));
    f.widget = box;
    auto snapshot = m_snapshot;
    f.value = [spin, chain, snapshot]() -> std::variant<RequestArg, QString> {
      std::vector<const ir::StmtNode*> nodes;
      for (int k = 0; k < spin->value(); ++k) {
        if (k >= static_cast<int>(chain.size()))
          return QStringLiteral("only %1 loop(s) are directly nested here").arg(chain.size());
        nodes.push_back(snapshot->nodes[chain[k]].node);
      }
      return RequestArg{nodes};
    };
    return f;
  }
  if (paramKind == ParamKind::LoopOrder) { // drag to order, uncheck to leave out
    auto* list = new QListWidget(m_formHost);
    list->setObjectName(QStringLiteral("reorderLoops"));
    list->setDragDropMode(QAbstractItemView::InternalMove);
    list->setDefaultDropAction(Qt::MoveAction);
    list->setToolTip(QStringLiteral("Drag to order the loops; unchecked loops keep their place."));
    std::vector<int> loops = snap.loopsOfBlockBelow(m_index);
    for (int l : loops) {
      auto* item = new QListWidgetItem(qs(snap.nodes[l].name), list);
      item->setData(Qt::UserRole, l);
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsDragEnabled);
      bool below = false;
      for (int p = l; p >= 0; p = snap.nodes[p].parent)
        if (p == m_index) below = true;
      item->setCheckState(below ? Qt::Checked : Qt::Unchecked);
    }
    list->setMaximumHeight(list->sizeHintForRow(0) * std::max<int>(3, static_cast<int>(loops.size())) + 8);
    f.widget = list;
    auto snapshot = m_snapshot;
    f.value = [list, snapshot]() -> std::variant<RequestArg, QString> {
      std::vector<const ir::StmtNode*> nodes;
      for (int r = 0; r < list->count(); ++r)
        if (list->item(r)->checkState() == Qt::Checked)
          nodes.push_back(snapshot->nodes[list->item(r)->data(Qt::UserRole).toInt()].node);
      if (nodes.size() < 2) return QStringLiteral("check at least two loops to reorder");
      return RequestArg{nodes};
    };
    return f;
  }
  if (paramKind == ParamKind::Factors) {
    auto* edit = new QLineEdit(QStringLiteral("None, 32"), m_formHost);
    auto* inferred = new QLabel(m_formHost);
    inferred->setObjectName(QStringLiteral("splitInferred"));
    inferred->setWordWrap(true); // a long hint wraps; it never widens the dock
    const std::optional<std::int64_t> extent = sel.constExtent;
    auto update = [edit, inferred, extent] {
      auto parsed = parseFactorList(edit->text().toStdString());
      if (const auto* err = std::get_if<std::string>(&parsed))
        inferred->setText(QStringLiteral("<span style='color:#d03030'>%1</span>").arg(qs(*err).toHtmlEscaped()));
      else
        inferred->setText(QStringLiteral("→ ") + qs(describeSplit(extent, std::get<schedule::TraceList>(parsed))));
    };
    update();
    connect(edit, &QLineEdit::textChanged, inferred, update);
    auto* box = new QWidget(m_formHost);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(edit);
    v->addWidget(inferred);
    // Minimum heights the form layout honours (it squeezed the wrapped hint's box below
    // its height for width, drawing the hint over the field at 1280x800): the field's own
    // height and three lines of hint (a symbolic extent's hint takes three at 1280x800).
    edit->setMinimumHeight(edit->sizeHint().height());
    inferred->setMinimumHeight(3 * inferred->fontMetrics().lineSpacing());
    edit->setObjectName(QStringLiteral("factors"));
    f.widget = box;
    f.value = [edit]() -> std::variant<RequestArg, QString> {
      auto parsed = parseFactorList(edit->text().toStdString());
      if (const auto* err = std::get_if<std::string>(&parsed)) return QStringLiteral("factors: ") + qs(*err);
      return RequestArg{TraceValue(std::get<schedule::TraceList>(parsed))};
    };
    return f;
  }
  if (paramKind == ParamKind::TargetLoop) { // a loop other than the selection
    auto* combo = formCombo(m_formHost);
    combo->setObjectName(QStringLiteral("targetLoop"));
    for (std::size_t n = 0; n < snap.nodes.size(); ++n)
      if (snap.nodes[n].kind == NodeInfo::Kind::Loop) {
        combo->addItem(nodeLabel(snap, static_cast<int>(n)), int(n));
        combo->setItemData(combo->count() - 1, combo->itemText(combo->count() - 1), Qt::ToolTipRole);
      }
    auto* pick = new QPushButton(QStringLiteral("Pick"), m_formHost);
    pick->setCheckable(true);
    pick->setToolTip(QStringLiteral("Then click the target loop in the TensorIR view"));
    auto* box = new QWidget(m_formHost);
    auto* h = new QHBoxLayout(box);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(combo, 1);
    h->addWidget(pick);
    f.widget = box;
    connect(pick, &QPushButton::toggled, this, &PrimitivePanel::pickingChanged);
    f.picking = [pick] { return pick->isChecked(); };
    f.pick = [combo, pick](int index) {
      const int at = combo->findData(index);
      if (at >= 0) combo->setCurrentIndex(at);
      pick->setChecked(false);
    };
    auto snapshot = m_snapshot;
    f.value = [combo, snapshot]() -> std::variant<RequestArg, QString> {
      if (combo->currentIndex() < 0) return QStringLiteral("pick a target loop");
      return RequestArg{snapshot->nodes[combo->currentData().toInt()].node};
    };
    return f;
  }
  if (paramKind == ParamKind::ConsumerBlocks) {
    auto* edit = new QLineEdit(m_formHost);
    edit->setPlaceholderText(QStringLiteral("all consumers (or block names, comma-separated)"));
    f.widget = edit;
    auto snapshot = m_snapshot;
    f.value = [edit, snapshot]() -> std::variant<RequestArg, QString> {
      const QStringList names = edit->text().split(u',', Qt::SkipEmptyParts);
      if (names.isEmpty()) return RequestArg{TraceValue()};
      std::vector<const ir::StmtNode*> nodes;
      for (const QString& n : names) {
        const int b = snapshot->find(NodeInfo::Kind::Block, n.trimmed().toStdString());
        if (b < 0) return QStringLiteral("no block named '%1'").arg(n.trimmed());
        nodes.push_back(snapshot->nodes[b].node);
      }
      return RequestArg{nodes};
    };
    return f;
  }
  if (paramKind == ParamKind::BufferAccess) {
    auto* combo = formCombo(m_formHost);
    for (std::size_t r = 0; r < sel.reads.size(); ++r)
      combo->addItem(QStringLiteral("read %1: %2").arg(r).arg(qs(sel.reads[r])), QStringList{"read", QString::number(r)});
    for (std::size_t w = 0; w < sel.writes.size(); ++w)
      combo->addItem(QStringLiteral("write %1: %2").arg(w).arg(qs(sel.writes[w])),
                     QStringList{"write", QString::number(w)});
    f.widget = combo;
    f.value = [combo]() -> std::variant<RequestArg, QString> {
      const QStringList d = combo->currentData().toStringList();
      if (d.size() != 2) return QStringLiteral("the block accesses no buffer");
      return RequestArg{TraceValue(schedule::TraceList{d[0].toStdString(), std::int64_t(d[1].toInt())})};
    };
    return f;
  }
  if (paramKind == ParamKind::IndexMap) {
    auto* edit = new QLineEdit(QStringLiteral("lambda i, j: (i, j)"), m_formHost);
    f.widget = edit;
    f.value = [edit]() -> std::variant<RequestArg, QString> {
      auto map = schedule::parseIndexMap(edit->text().toStdString(), "<index_map>");
      if (!map) return QStringLiteral("index_map: ") + qs(map.error().message);
      return RequestArg{TraceValue(*map)};
    };
    return f;
  }
  // Any other input is a literal (annotate's ann_val).
  auto* edit = new QLineEdit(m_formHost);
  edit->setPlaceholderText(QStringLiteral("Python literal: 1, 2.5, \"text\", True"));
  f.widget = edit;
  f.value = [edit]() -> std::variant<RequestArg, QString> {
    return RequestArg{parseLiteral(edit->text().toStdString())};
  };
  return f;
}

PrimitivePanel::Field PrimitivePanel::makeAttrField(const InstructionKind& kind, std::size_t i) {
  const schedule::AttrSpec& spec = kind.attrs[i];
  const ProgramSnapshot& snap = *m_snapshot;
  const NodeInfo& sel = snap.nodes[m_index];
  const std::string_view name = spec.name;
  Field f;
  f.name = qs(name);
  f.isInput = false;
  auto literal = [](TraceValue v) { return std::variant<RequestArg, QString>(RequestArg{std::move(v)}); };
  auto textField = [&](QWidget* w, std::function<std::string()> get) {
    f.widget = w;
    f.value = [get, literal] { return literal(get()); };
    return f;
  };
  auto comboOf = [&](const QStringList& items) {
    auto* combo = formCombo(m_formHost);
    combo->addItems(items);
    return combo;
  };

  switch (spec.kind) {
  case ParamKind::SelectionName: { // the polyhedral family names loops and blocks
    // A loop name shared by sibling nests is qualified by the block it runs: "i@C".
    std::string value = sel.name;
    if (sel.kind == NodeInfo::Kind::Loop) {
      int same = 0;
      for (const NodeInfo& n : snap.nodes)
        same += n.kind == NodeInfo::Kind::Loop && n.name == sel.name;
      if (same > 1 && !sel.blocksBelow.empty()) value += "@" + sel.blocksBelow.front();
    }
    return textField(new QLabel(qs(value), m_formHost), [value] { return value; });
  }
  case ParamKind::LoopAboveName: {
    QStringList loops;
    for (int l : sel.loopsAbove)
      loops << qs(snap.nodes[l].name);
    QComboBox* combo = comboOf(loops);
    return textField(combo, [combo] { return combo->currentText().toStdString(); });
  }
  case ParamKind::LoopName: {
    QStringList loops;
    for (const NodeInfo& n : snap.nodes)
      if (n.kind == NodeInfo::Kind::Loop) loops << qs(n.name);
    QComboBox* combo = comboOf(loops);
    combo->setEditable(true);
    return textField(combo, [combo] { return combo->currentText().toStdString(); });
  }
  case ParamKind::Choice:
  case ParamKind::EditableChoice: {
    QComboBox* combo = comboOf(qsList(spec.choices));
    if (spec.kind == ParamKind::EditableChoice) combo->setEditable(true);
    if (!spec.formValue.empty()) combo->setCurrentText(qs(spec.formValue));
    return textField(combo, [combo] { return combo->currentText().toStdString(); });
  }
  case ParamKind::IntList: {
    auto* edit = new QLineEdit(m_formHost);
    edit->setObjectName(QStringLiteral("poly_") + qs(name)); // the lists are the polyhedral family's
    edit->setText(qs(spec.formValue));
    edit->setPlaceholderText(QStringLiteral("integers, comma-separated"));
    f.widget = edit;
    f.value = [edit, literal]() -> std::variant<RequestArg, QString> {
      schedule::TraceList list;
      for (const QString& part : edit->text().split(u',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong v = part.trimmed().toLongLong(&ok);
        if (!ok) return QStringLiteral("'%1' is not an integer").arg(part.trimmed());
        list.emplace_back(std::int64_t(v));
      }
      return literal(std::move(list));
    };
    return f;
  }
  case ParamKind::Bool: {
    auto* box = new QCheckBox(m_formHost);
    box->setObjectName(QStringLiteral("attr_") + qs(name));
    const bool* b = spec.defaultValue.get<bool>();
    box->setChecked(b != nullptr && *b);
    f.widget = box;
    f.value = [box, literal] { return literal(box->isChecked()); };
    return f;
  }
  case ParamKind::ReadBufferIndex:
  case ParamKind::WriteBufferIndex: {
    // read_buffer_index indexes the block's reads; write_buffer_index and buffer_index
    // (set_scope, storage_align) its writes, as in TVM.
    const bool reads = spec.kind == ParamKind::ReadBufferIndex;
    const std::vector<std::string>& buffers = reads ? sel.reads : sel.writes;
    auto* combo = formCombo(m_formHost);
    for (std::size_t k = 0; k < buffers.size(); ++k)
      combo->addItem(QStringLiteral("%1: %2").arg(k).arg(qs(buffers[k])), int(k));
    f.widget = combo;
    f.value = [combo, reads, literal]() -> std::variant<RequestArg, QString> {
      if (combo->currentIndex() < 0)
        return reads ? QStringLiteral("the block reads no buffer") : QStringLiteral("the block writes no buffer");
      return literal(std::int64_t(combo->currentData().toInt()));
    };
    return f;
  }
  case ParamKind::Int: {
    auto* spin = new QSpinBox(m_formHost);
    spin->setRange(-1, 1 << 24);
    const std::int64_t* d = spec.defaultValue.get<std::int64_t>();
    spin->setValue(d ? static_cast<int>(*d) : qs(spec.formValue).toInt());
    f.widget = spin;
    f.value = [spin, literal] { return literal(std::int64_t(spin->value())); };
    return f;
  }
  case ParamKind::Float: {
    auto* spin = new QDoubleSpinBox(m_formHost);
    spin->setDecimals(6);
    spin->setRange(-1e9, 1e9);
    const double* d = spec.defaultValue.get<double>();
    spin->setValue(d ? *d : 0.0);
    f.widget = spin;
    f.value = [spin, literal] { return literal(spin->value()); };
    return f;
  }
  default: // Text, Literal
    break;
  }
  auto* edit = new QLineEdit(m_formHost);
  if (const std::string* s = spec.defaultValue.get<std::string>()) edit->setText(qs(*s));
  const bool isString = spec.kind == ParamKind::Text;
  edit->setPlaceholderText(isString ? QStringLiteral("text") : QStringLiteral("None"));
  f.widget = edit;
  f.value = [edit, isString, literal]() -> std::variant<RequestArg, QString> {
    if (isString) return literal(edit->text().toStdString());
    return literal(parseLiteral(edit->text().toStdString()));
  };
  return f;
}

std::variant<PrimitiveRequest, QString> PrimitivePanel::buildRequest() const {
  const InstructionKind* kind = schedule::findInstructionKind(currentPrimitive().toStdString());
  if (kind == nullptr || selected() == nullptr) return QStringLiteral("select a loop or block and a primitive");
  PrimitiveRequest request;
  request.kind = std::string(kind->name);
  request.snapshot = m_snapshot;
  for (const Field& f : m_fields) {
    auto v = f.value();
    if (const QString* err = std::get_if<QString>(&v)) return *err;
    RequestArg arg = std::get<RequestArg>(std::move(v));
    if (f.isInput) {
      request.inputs.push_back(std::move(arg));
    } else {
      request.attrs.push_back(std::get<TraceValue>(std::move(arg.value)));
    }
  }
  return request;
}

void PrimitivePanel::apply() {
  auto r = buildRequest();
  if (const QString* err = std::get_if<QString>(&r)) {
    m_error->setText(*err);
    return;
  }
  m_error->clear();
  Q_EMIT applyRequested(std::get<PrimitiveRequest>(r));
}

void PrimitivePanel::preview() {
  auto r = buildRequest();
  if (const QString* err = std::get_if<QString>(&r)) {
    m_error->setText(*err);
    return;
  }
  m_error->clear();
  Q_EMIT previewRequested(std::get<PrimitiveRequest>(r));
}

} // namespace loopscape::views
