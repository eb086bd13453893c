#include "views/primitive_panel.h"

#include "core/schedule/instruction.h"
#include "core/schedule/trace_script.h"
#include "views/trace_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace loopscape::views {

namespace {

using schedule::InstructionKind;
using schedule::TraceValue;

enum class Accepts { Loop, Block, Either, Nothing };

Accepts firstInputAccepts(const InstructionKind& kind) {
  // The polyhedral family (core/poly) names loops and blocks by literal names.
  if (kind.name == "poly_auto") return Accepts::Either;
  if (kind.name == "poly_shift" || kind.name == "poly_compute_at_tile") return Accepts::Block;
  if (kind.name.starts_with("poly_")) return Accepts::Loop;
  if (kind.inputNames.empty() || kind.isSampling || isLookupKind(kind.name)) return Accepts::Nothing;
  const std::string_view n = kind.inputNames.front();
  if (n == "loop" || n == "loops") return Accepts::Loop;
  if (n == "block") return Accepts::Block;
  if (n == "block_or_loop" || n == "target") return Accepts::Either;
  return Accepts::Nothing;
}

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QString nodeLabel(const ProgramSnapshot& snap, int index) {
  const NodeInfo& n = snap.nodes[index];
  if (n.kind == NodeInfo::Kind::Block) return QStringLiteral("block %1").arg(qs(n.name));
  QString s = QStringLiteral("loop %1 (%2").arg(qs(n.name), qs(n.extent));
  if (n.loopKind != "serial") s += QStringLiteral(", ") + qs(n.loopKind);
  if (!n.blocksBelow.empty()) s += QStringLiteral("; ") + qs(n.blocksBelow.front());
  return s + u')';
}

QString hint(std::string_view kind) {
  static const std::pair<const char*, const char*> kHints[] = {
      {"split", "split the loop into nested loops"},
      {"fuse", "fuse the loop with the loops nested in it"},
      {"reorder", "reorder the loops of the block"},
      {"parallel", "run the loop's iterations in parallel"},
      {"vectorize", "turn the loop into vector operations"},
      {"unroll", "unroll the loop"},
      {"bind", "bind the loop to a GPU thread axis"},
      {"annotate", "attach an annotation"},
      {"unannotate", "remove an annotation"},
      {"compute_at", "move the block under a loop of its consumer"},
      {"reverse_compute_at", "move the block under a loop of its producer"},
      {"compute_inline", "inline the block into its consumers"},
      {"reverse_compute_inline", "inline the block into its producer"},
      {"cache_read", "stage a read buffer in a cache"},
      {"cache_write", "stage a written buffer in a cache"},
      {"set_scope", "change the storage scope of a buffer"},
      {"storage_align", "pad a buffer's strides"},
      {"decompose_reduction", "separate the init of a reduction"},
      {"rfactor", "factor a reduction over this loop"},
      {"blockize", "make a block of the subtree"},
      {"transform_layout", "re-index a buffer"},
      {"poly_auto", "run the isl scheduler on the whole program"},
      {"poly_tile", "tile the band starting at this loop (isl schedule tree)"},
      {"poly_interchange", "permute the members of the band"},
      {"poly_skew", "skew a band member by another"},
      {"poly_shift", "shift one statement along a loop"},
      {"poly_fuse", "fuse this loop with a sibling loop"},
      {"poly_distribute", "distribute the statements of the band"},
      {"poly_mark", "mark a band member parallel, vectorized or unrolled"},
      {"poly_compute_at_tile", "compute the block inside a tile loop"},
      {"add_unit_loop", "add a loop of extent 1"},
      {"loop_partition", "partition the loop into ranges"},
  };
  for (const auto& [k, h] : kHints)
    if (kind == k) return QString::fromLatin1(h);
  return {};
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
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_selectionLabel);
  layout->addWidget(m_list, 2);
  layout->addWidget(m_formHost);
  layout->addWidget(m_error);
  layout->addWidget(m_apply);
  layout->addStretch(1);
  connect(m_list, &QListWidget::currentRowChanged, this, [this] { rebuildForm(); });
  connect(m_apply, &QPushButton::clicked, this, &PrimitivePanel::apply);
  setSelection(nullptr, -1);
}

std::vector<const InstructionKind*> PrimitivePanel::catalogue() {
  std::vector<const InstructionKind*> out;
  for (const InstructionKind* k : schedule::instructionKinds())
    if (firstInputAccepts(*k) != Accepts::Nothing) out.push_back(k);
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
    // The everyday primitives first, the rest in registry order.
    static const std::string_view kOrder[] = {"split", "fuse", "reorder", "parallel", "vectorize", "unroll",
                                              "compute_inline", "reverse_compute_inline", "compute_at",
                                              "reverse_compute_at", "cache_read", "cache_write", "rfactor",
                                              "decompose_reduction", "bind"};
    auto rank = [](const InstructionKind* k) {
      for (std::size_t i = 0; i < std::size(kOrder); ++i)
        if (k->name == kOrder[i]) return static_cast<int>(i);
      return static_cast<int>(std::size(kOrder));
    };
    std::vector<const InstructionKind*> kinds = catalogue();
    std::stable_sort(kinds.begin(), kinds.end(),
                     [&](const InstructionKind* a, const InstructionKind* b) { return rank(a) < rank(b); });
    for (const InstructionKind* k : kinds) {
      const Accepts a = firstInputAccepts(*k);
      const bool ok = a == Accepts::Either || (a == Accepts::Loop) == (n->kind == NodeInfo::Kind::Loop);
      if (!ok) continue;
      auto* item = new QListWidgetItem(qs(k->name), m_list);
      item->setToolTip(hint(k->name));
      item->setData(Qt::UserRole, qs(k->name));
    }
  }
  m_list->blockSignals(false);
  if (m_list->count() > 0) {
    const auto found = m_list->findItems(previous, Qt::MatchExactly);
    m_list->setCurrentRow(found.isEmpty() ? 0 : m_list->row(found.front()));
  }
  rebuildForm();
}

QStringList PrimitivePanel::primitives() const {
  QStringList out;
  for (int i = 0; i < m_list->count(); ++i) out << m_list->item(i)->text();
  return out;
}

bool PrimitivePanel::choosePrimitive(const QString& name) {
  const auto found = m_list->findItems(name, Qt::MatchExactly);
  if (found.isEmpty()) return false;
  m_list->setCurrentItem(found.front());
  return true;
}

QString PrimitivePanel::currentPrimitive() const {
  return m_list->currentItem() != nullptr ? m_list->currentItem()->text() : QString();
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
  if (kind == nullptr || selected() == nullptr) return;
  for (std::size_t i = 0; i < kind->inputNames.size(); ++i) m_fields.push_back(makeInputField(*kind, i));
  for (std::size_t i = 0; i < kind->attrs.size(); ++i) {
    m_fields.push_back(makeAttrField(*kind, i));
    if (const QString tip = attrHint(kind->name, kind->attrs[i].name); !tip.isEmpty())
      m_fields.back().widget->setToolTip(tip);
  }
  for (const Field& f : m_fields) m_form->addRow(f.name + u':', f.widget);
}

QString PrimitivePanel::attrHint(std::string_view primitive, std::string_view attr) {
  if (primitive != "poly_auto") return {};
  if (attr == "fusion")
    return QStringLiteral("max: fuse whole connected components (AKG); smart: fuse where no parallelism is lost "
                          "(PPCG); min: no fusion across strongly connected components");
  if (attr == "outer_coincidence") return QStringLiteral("isl's schedule_outer_coincidence");
  if (attr == "maximize_band_depth") return QStringLiteral("isl's schedule_maximize_band_depth");
  if (attr == "algorithm") return QStringLiteral("isl (Pluto-like) or feautrier");
  if (attr == "tile")
    return QStringLiteral("tile sizes for the outermost bands of the result (PPCG's --tile); empty: none");
  if (attr == "simplify_deps")
    return QStringLiteral("schedule on the dependences simplified against the domains, as Polly does (much faster "
                          "for fusion max); unchecked: the exact dependences, as PPCG");
  return {};
}

PrimitivePanel::Field PrimitivePanel::makeInputField(const InstructionKind& kind, std::size_t i) {
  const ProgramSnapshot& snap = *m_snapshot;
  const NodeInfo& sel = snap.nodes[m_index];
  const ir::StmtNode* selNode = sel.node;
  const std::string_view name = kind.inputNames[i];
  Field f;
  f.name = qs(name);
  f.isInput = true;

  if (i == 0 && name != "loops") {
    auto* label = new QLabel(nodeLabel(snap, m_index), m_formHost);
    f.widget = label;
    f.value = [selNode]() -> std::variant<RequestArg, QString> { return RequestArg{selNode}; };
    return f;
  }
  if (name == "loops" && kind.name == "poly_fuse") {
    auto* combo = new QComboBox(m_formHost);
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
  if (name == "loops" && kind.name == "fuse") {
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
  if (name == "loops") { // reorder: drag to order, uncheck to leave out
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
  if (name == "factors") {
    auto* edit = new QLineEdit(QStringLiteral("None, 32"), m_formHost);
    auto* inferred = new QLabel(m_formHost);
    inferred->setObjectName(QStringLiteral("splitInferred"));
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
    edit->setObjectName(QStringLiteral("factors"));
    f.widget = box;
    f.value = [edit]() -> std::variant<RequestArg, QString> {
      auto parsed = parseFactorList(edit->text().toStdString());
      if (const auto* err = std::get_if<std::string>(&parsed)) return QStringLiteral("factors: ") + qs(*err);
      return RequestArg{TraceValue(std::get<schedule::TraceList>(parsed))};
    };
    return f;
  }
  if (name == "loop") { // a target loop other than the selection (compute_at, decompose_reduction)
    auto* combo = new QComboBox(m_formHost);
    combo->setObjectName(QStringLiteral("targetLoop"));
    for (std::size_t n = 0; n < snap.nodes.size(); ++n)
      if (snap.nodes[n].kind == NodeInfo::Kind::Loop) combo->addItem(nodeLabel(snap, static_cast<int>(n)), int(n));
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
  if (name == "consumer_blocks") {
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
  if (name == "buffer") {
    auto* combo = new QComboBox(m_formHost);
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
  if (name == "index_map") {
    auto* edit = new QLineEdit(QStringLiteral("lambda i, j: (i, j)"), m_formHost);
    f.widget = edit;
    f.value = [edit]() -> std::variant<RequestArg, QString> {
      auto map = schedule::parseIndexMap(edit->text().toStdString(), "<index_map>");
      if (!map) return QStringLiteral("index_map: ") + qs(map.error().message);
      return RequestArg{TraceValue(*map)};
    };
    return f;
  }
  // Any other literal input (annotate's ann_val).
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
  const NodeInfo& sel = m_snapshot->nodes[m_index];
  const std::string_view name = spec.name;
  Field f;
  f.name = qs(name);
  f.isInput = false;
  auto literal = [](TraceValue v) { return std::variant<RequestArg, QString>(RequestArg{std::move(v)}); };

  // ---- the polyhedral family: loops and blocks by name ----
  if (kind.name.starts_with("poly_")) {
    const ProgramSnapshot& snap = *m_snapshot;
    auto textField = [&](QWidget* w, std::function<std::string()> get) {
      f.widget = w;
      f.value = [get, literal] { return literal(get()); };
      return f;
    };
    auto comboOf = [&](const QStringList& items, const QString& current) {
      auto* combo = new QComboBox(m_formHost);
      combo->addItems(items);
      if (!current.isEmpty()) combo->setCurrentText(current);
      return combo;
    };
    if ((name == "band" && sel.kind == NodeInfo::Kind::Loop) ||
        ((name == "statement" || name == "block") && sel.kind == NodeInfo::Kind::Block)) {
      // A loop name shared by sibling nests is qualified by the block it runs: "i@C".
      std::string value = sel.name;
      if (sel.kind == NodeInfo::Kind::Loop) {
        int same = 0;
        for (const NodeInfo& n : snap.nodes) same += n.kind == NodeInfo::Kind::Loop && n.name == sel.name;
        if (same > 1 && !sel.blocksBelow.empty()) value += "@" + sel.blocksBelow.front();
      }
      return textField(new QLabel(qs(value), m_formHost), [value] { return value; });
    }
    if (name == "member" && spec.defaultValue.get<std::string>() != nullptr) { // poly_shift: a loop of the block
      QStringList loops;
      for (int l : sel.loopsAbove) loops << qs(snap.nodes[l].name);
      QComboBox* combo = comboOf(loops, {});
      return textField(combo, [combo] { return combo->currentText().toStdString(); });
    }
    if (name == "loop") { // poly_compute_at_tile: the tile loop
      QStringList loops;
      for (const NodeInfo& n : snap.nodes)
        if (n.kind == NodeInfo::Kind::Loop) loops << qs(n.name);
      QComboBox* combo = comboOf(loops, {});
      combo->setEditable(true);
      return textField(combo, [combo] { return combo->currentText().toStdString(); });
    }
    if (name == "kind") {
      QComboBox* combo = comboOf({"parallel", "vectorized", "unroll"}, {});
      return textField(combo, [combo] { return combo->currentText().toStdString(); });
    }
    if (name == "fusion") {
      QComboBox* combo = comboOf({"max", "smart", "min"}, {});
      return textField(combo, [combo] { return combo->currentText().toStdString(); });
    }
    if (name == "algorithm") {
      QComboBox* combo = comboOf({"isl", "feautrier"}, {});
      return textField(combo, [combo] { return combo->currentText().toStdString(); });
    }
    if (spec.defaultValue.get<schedule::TraceList>() != nullptr) { // sizes, permutation, tile
      auto* edit = new QLineEdit(m_formHost);
      edit->setObjectName(QStringLiteral("poly_") + qs(name));
      edit->setText(name == "sizes" ? QStringLiteral("32, 32") : name == "permutation" ? QStringLiteral("1, 0") : QString());
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
  }
  if (const bool* b = spec.defaultValue.get<bool>()) {
    auto* box = new QCheckBox(m_formHost);
    box->setObjectName(QStringLiteral("attr_") + qs(name));
    box->setChecked(*b);
    f.widget = box;
    f.value = [box, literal] { return literal(box->isChecked()); };
    return f;
  }
  if (name == "thread_axis") {
    auto* combo = new QComboBox(m_formHost);
    combo->setEditable(true);
    combo->addItems({"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z",
                     "vthread.x", "vthread.y", "vthread.z"});
    f.widget = combo;
    f.value = [combo, literal] { return literal(combo->currentText().toStdString()); };
    return f;
  }
  if (name.ends_with("buffer_index")) {
    // read_buffer_index indexes the block's reads; write_buffer_index and buffer_index
    // (set_scope, storage_align) its writes, as in TVM.
    const bool reads = name == "read_buffer_index";
    const std::vector<std::string>& buffers = reads ? sel.reads : sel.writes;
    auto* combo = new QComboBox(m_formHost);
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
  if (name == "storage_scope") {
    auto* combo = new QComboBox(m_formHost);
    combo->setEditable(true);
    combo->addItems({"global", "shared", "shared.dyn", "local", "warp"});
    combo->setCurrentText(kind.name == "set_scope" ? QStringLiteral("shared") : QStringLiteral("local"));
    f.widget = combo;
    f.value = [combo, literal] { return literal(combo->currentText().toStdString()); };
    return f;
  }
  if (spec.defaultValue.get<std::int64_t>() != nullptr || name == "axis" || name == "factor" || name == "offset") {
    auto* spin = new QSpinBox(m_formHost);
    spin->setRange(-1, 1 << 24);
    const std::int64_t* d = spec.defaultValue.get<std::int64_t>();
    spin->setValue(d ? static_cast<int>(*d) : (name == "factor" ? 32 : 0));
    f.widget = spin;
    f.value = [spin, literal] { return literal(std::int64_t(spin->value())); };
    return f;
  }
  if (const double* d = spec.defaultValue.get<double>()) {
    auto* spin = new QDoubleSpinBox(m_formHost);
    spin->setDecimals(6);
    spin->setRange(-1e9, 1e9);
    spin->setValue(*d);
    f.widget = spin;
    f.value = [spin, literal] { return literal(spin->value()); };
    return f;
  }
  auto* edit = new QLineEdit(m_formHost);
  if (const std::string* s = spec.defaultValue.get<std::string>()) edit->setText(qs(*s));
  const bool isString = name == "ann_key" || spec.defaultValue.get<std::string>() != nullptr;
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

} // namespace loopscape::views
