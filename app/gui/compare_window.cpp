#include "app/gui/compare_window.h"

#include "app/gui/code_jobs.h"
#include "app/gui/job_runner.h"
#include "app/gui/session.h"
#include "core/poly/poly_schedule.h"
#include "views/code_highlighter.h"
#include "views/compare_chart.h"
#include "views/qt_text.h"
#include "views/tensorir_view.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>

namespace loopscape::gui {

namespace {

using views::qs;

/// The chooser's entries, in CompareSpec::Kind order.
const char* const kKindTexts[] = {"Current trace", "Trace step",        poly::kPolyAutoName,
                                  "Trace file",    "Tuning log (best)", "Original program"};

struct DiffColors {
  QColor removed, added, changed;
};
DiffColors diffColors(bool dark) {
  // Changed is lavender: amber is the selection's colour (TensorIrView).
  if (dark) return {QColor(110, 40, 45), QColor(35, 95, 45), QColor(85, 62, 120)};
  return {QColor(250, 205, 205), QColor(200, 238, 200), QColor(222, 210, 250)};
}

QString sideName(bool first) { return first ? QStringLiteral("A") : QStringLiteral("B"); }

QColor sideColor(bool first) { return first ? QColor(74, 120, 194) : QColor(217, 130, 43); }

QTableWidgetItem* item(const QString& text, Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter) {
  auto* it = new QTableWidgetItem(text);
  it->setTextAlignment(align);
  it->setToolTip(text.trimmed()); // the whole text where a narrow column cuts it
  it->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return it;
}

QTableWidget* makeTable(const QString& name, const QStringList& headers) {
  auto* t = new QTableWidget(0, static_cast<int>(headers.size()));
  t->setObjectName(name);
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->hide();
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  return t;
}

QPlainTextEdit* makeCodeEdit(const QString& name) {
  auto* e = new QPlainTextEdit;
  e->setObjectName(name);
  e->setReadOnly(true);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono(QStringLiteral("DejaVu Sans Mono"));
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSize(9);
  e->setFont(mono);
  return e;
}

/// The line of the other text that lines up with `line` (1-based) of this one: the same
/// line where both have it, else the other side's line next to it in the merged order.
int alignedLine(const std::vector<compare::LineDiffEntry>& diff, int line, bool fromFirst) {
  int last = 0;
  for (const compare::LineDiffEntry& e : diff) {
    const int here = fromFirst ? e.a : e.b;
    const int there = fromFirst ? e.b : e.a;
    if (here >= line) return there ? there : last + 1;
    if (there) last = there;
  }
  return last;
}

} // namespace

CompareWindow::CompareWindow(Session* session, QWidget* parent)
    : QWidget(parent, Qt::Window), m_session(session), m_jobs(new JobRunner(this)), m_profile(new ProfileJob(this)) {
  setObjectName(QStringLiteral("compareWindow"));
  setWindowTitle(QStringLiteral("Compare — Loopscape"));
  resize(1400, 900);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->setSpacing(4);

  // The two choosers and the actions.
  auto* top = new QHBoxLayout;
  top->addWidget(makeSideChooser(true), 1);
  top->addWidget(makeSideChooser(false), 1);
  m_compareButton = new QPushButton(QStringLiteral("Compare"));
  m_compareButton->setObjectName(QStringLiteral("compareButton"));
  m_compareButton->setToolTip(QStringLiteral("Compute both sides as chosen"));
  m_polyButton = new QPushButton(QStringLiteral("Current vs poly_auto"));
  m_polyButton->setObjectName(QStringLiteral("comparePolyButton"));
  m_polyButton->setToolTip(
      QStringLiteral("The classic comparison: the current (Halide/TVM-style) trace against the isl scheduler's "
                     "poly_auto on the same program"));
  auto* exportButton = new QToolButton;
  exportButton->setObjectName(QStringLiteral("compareExportButton"));
  exportButton->setText(QStringLiteral("Export…"));
  exportButton->setToolTip(QStringLiteral("Export this window as PNG or SVG (File → Export view, Ctrl+Alt+E)"));
  connect(exportButton, &QToolButton::clicked, this, [this] { Q_EMIT exportRequested(); });
  top->addWidget(m_compareButton);
  top->addWidget(m_polyButton);
  top->addWidget(exportButton);
  layout->addLayout(top);
  m_status = new QLabel;
  m_status->setObjectName(QStringLiteral("compareStatus"));
  m_status->setTextFormat(Qt::RichText);
  layout->addWidget(m_status);

  // TensorIR of both sides.
  auto* programs = new QSplitter(Qt::Horizontal);
  programs->setObjectName(QStringLiteral("compareProgramsSplitter"));
  for (bool first : {true, false}) {
    auto* pane = new QWidget;
    auto* v = new QVBoxLayout(pane);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    auto* title = new QLabel;
    title->setObjectName(first ? QStringLiteral("compareTitleA") : QStringLiteral("compareTitleB"));
    title->setTextFormat(Qt::RichText);
    auto* ir = new views::TensorIrView;
    ir->setObjectName(first ? QStringLiteral("compareProgramA") : QStringLiteral("compareProgramB"));
    v->addWidget(title);
    v->addWidget(ir, 1);
    programs->addWidget(pane);
    (first ? m_titleA : m_titleB) = title;
    (first ? m_irA : m_irB) = ir;
    connect(ir, &views::TensorIrView::nodeSelected, this, [this, first](int index) { onNodeSelected(first, index); });
    connect(ir->verticalScrollBar(), &QScrollBar::valueChanged, this, [this, first] { syncProgramScroll(first); });
  }

  m_tabs = new QTabWidget;
  m_tabs->setObjectName(QStringLiteral("compareTabs"));
  m_tabs->addTab(makeCodeTab(), QStringLiteral("Generated code"));
  auto* trees = new QWidget;
  auto* tv = new QVBoxLayout(trees);
  tv->setContentsMargins(4, 4, 4, 4);
  m_treeStatus = new QLabel;
  m_treeStatus->setObjectName(QStringLiteral("compareTreeStatus"));
  m_treeStatus->setWordWrap(true);
  m_pairs = makeTable(QStringLiteral("comparePairs"),
                      {QStringLiteral("A band"), QStringLiteral("B band"), QStringLiteral("paired by")});
  tv->addWidget(m_treeStatus);
  tv->addWidget(m_pairs, 1);
  m_tabs->addTab(trees, QStringLiteral("Schedule trees"));
  m_tabs->addTab(makeLoopsTab(), QStringLiteral("Loops && dependences"));
  m_tabs->addTab(makeMeasureTab(), QStringLiteral("Measurements"));
  auto* corner = new QWidget;
  auto* ch = new QHBoxLayout(corner);
  ch->setContentsMargins(0, 0, 4, 0);
  ch->addWidget(new QLabel(QStringLiteral("Target:")));
  m_target = new QComboBox;
  m_target->setObjectName(QStringLiteral("compareTarget"));
  m_target->setToolTip(QStringLiteral("The plugin that generates the code and runs the measurements"));
  const auto targets = availableTargets();
  views::fillTargetCombo(m_target, targets);
  views::selectTarget(m_target, targets, session->target());
  ch->addWidget(m_target);
  m_tabs->setCornerWidget(corner, Qt::TopRightCorner);

  m_vertical = new QSplitter(Qt::Vertical);
  m_vertical->setObjectName(QStringLiteral("compareSplitter"));
  m_vertical->addWidget(programs);
  m_vertical->addWidget(m_tabs);
  m_vertical->setStretchFactor(0, 3);
  m_vertical->setStretchFactor(1, 2);
  layout->addWidget(m_vertical, 1);

  connect(m_compareButton, &QPushButton::clicked, this, [this] { compare(); });
  connect(m_polyButton, &QPushButton::clicked, this, [this] { compareWithPolyAuto(); });
  connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
    if (m_result) compare();
  });
  connect(m_jobs, &JobRunner::busyChanged, this, [this] { setBusyUi(); });
  connect(m_jobs, &JobRunner::progress, this, [this](const QString&, int done, int total) {
    if (done < total) setStatus(QStringLiteral("Computing the comparison… (%1 of %2)").arg(done + 1).arg(total));
  });
  connect(m_profile, &ProfileJob::progress, this, [this](const QString& stage, int, int) {
    m_measureStatus->setText(QStringLiteral("Measuring %1: %2").arg(sideName(m_measuring == 0)).arg(stage));
  });
  connect(m_profile, &ProfileJob::finished, this, [this](const views::ProfileRow& row) {
    if (m_measureGeneration != m_generation) return; // a run of a comparison no longer shown
    m_rows.push_back(row);
    showMeasurements();
    const bool stop = row.status == views::ProfileRow::Status::Cancelled || m_measuring == 1;
    if (!stop) {
      // The next side starts once this run has left the job.
      QMetaObject::invokeMethod(
          this, [this] { startMeasuring(1); }, Qt::QueuedConnection);
      return;
    }
    m_measuring = -1;
    setBusyUi();
    showMeasurements();
    Q_EMIT measurementFinished();
  });
  connect(session, &Session::stateChanged, this, [this] {
    if (m_result)
      setStatus(QStringLiteral("The program or its trace changed since this comparison: press Compare "
                               "to compare again."));
  });
  setSpecs(CompareSpec{}, CompareSpec{CompareSpec::Kind::PolyAuto, {}, 0});
  setBusyUi();
  setStatus(QStringLiteral("Choose the two sides and press Compare, or Current vs poly_auto."));
}

CompareWindow::~CompareWindow() { m_jobs->shutdown(); }

QWidget* CompareWindow::makeSideChooser(bool first) {
  auto* box = new QWidget;
  auto* h = new QHBoxLayout(box);
  h->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(first ? QStringLiteral("<b>A</b>") : QStringLiteral("<b>B</b>"));
  Chooser& c = m_choosers[first ? 0 : 1];
  c.kind = new QComboBox;
  c.kind->setObjectName(first ? QStringLiteral("compareKindA") : QStringLiteral("compareKindB"));
  for (const char* text : kKindTexts)
    c.kind->addItem(QString::fromUtf8(text));
  c.step = new QSpinBox;
  c.step->setObjectName(first ? QStringLiteral("compareStepA") : QStringLiteral("compareStepB"));
  c.step->setPrefix(QStringLiteral("step "));
  c.step->setRange(1, 1);
  c.path = new QLineEdit;
  c.path->setObjectName(first ? QStringLiteral("comparePathA") : QStringLiteral("comparePathB"));
  c.path->setMinimumWidth(80);
  c.browse = new QToolButton;
  c.browse->setText(QStringLiteral("…"));
  c.browse->setToolTip(QStringLiteral("Choose the file"));
  h->addWidget(label);
  h->addWidget(c.kind);
  h->addWidget(c.step);
  h->addWidget(c.path, 1);
  h->addWidget(c.browse);
  h->addStretch(0);
  connect(c.kind, &QComboBox::currentIndexChanged, this, [this, first] { updateChooser(first); });
  connect(c.browse, &QToolButton::clicked, this, [this, first] { browse(first); });
  connect(c.path, &QLineEdit::returnPressed, this, [this] { compare(); });
  return box;
}

void CompareWindow::updateChooser(bool first) {
  Chooser& c = m_choosers[first ? 0 : 1];
  const auto kind = static_cast<CompareSpec::Kind>(c.kind->currentIndex());
  const int steps = static_cast<int>(views::stepEnds(m_session->trace()).size());
  c.step->setRange(1, std::max(1, steps));
  c.step->setVisible(kind == CompareSpec::Kind::TraceStep);
  const bool file = kind == CompareSpec::Kind::TraceFile || kind == CompareSpec::Kind::TuningRecord;
  c.path->setVisible(file);
  c.browse->setVisible(file);
  c.path->setPlaceholderText(kind == CompareSpec::Kind::TuningRecord ? QStringLiteral("tuning log (.jsonl)")
                                                                     : QStringLiteral("trace (.py or .json)"));
}

void CompareWindow::browse(bool first) {
  Chooser& c = m_choosers[first ? 0 : 1];
  const bool log = c.kind->currentIndex() == static_cast<int>(CompareSpec::Kind::TuningRecord);
  const QString title = log ? QStringLiteral("Tuning log for side %1").arg(sideName(first))
                            : QStringLiteral("Trace for side %1").arg(sideName(first));
  const QString path = m_choose
                           ? m_choose(title, c.path->text())
                           : QFileDialog::getOpenFileName(this, title, c.path->text(),
                                                          log ? QStringLiteral("Tuning logs (*.jsonl *.json);;All "
                                                                               "files (*)")
                                                              : QStringLiteral("Traces (*.py *.json);;All files (*)"));
  if (path.isEmpty()) return;
  c.path->setText(path);
  compare();
}

void CompareWindow::setSpecs(const CompareSpec& a, const CompareSpec& b) {
  for (bool first : {true, false}) {
    const CompareSpec& s = first ? a : b;
    Chooser& c = m_choosers[first ? 0 : 1];
    c.kind->setCurrentIndex(static_cast<int>(s.kind));
    updateChooser(first);
    c.step->setValue(std::max(1, s.step));
    c.path->setText(qs(s.path));
  }
}

CompareSpec CompareWindow::spec(bool first) const {
  const Chooser& c = m_choosers[first ? 0 : 1];
  CompareSpec s;
  s.kind = static_cast<CompareSpec::Kind>(c.kind->currentIndex());
  if (s.kind == CompareSpec::Kind::TraceStep) s.step = c.step->value();
  if (s.kind == CompareSpec::Kind::TraceFile || s.kind == CompareSpec::Kind::TuningRecord)
    s.path = c.path->text().trimmed().toStdString();
  return s;
}

bool CompareWindow::compareWithPolyAuto() {
  setSpecs(CompareSpec{}, CompareSpec{CompareSpec::Kind::PolyAuto, {}, 0});
  return compare();
}

bool CompareWindow::compare() {
  const StatePtr& state = m_session->state();
  if (!state) {
    setStatus(QStringLiteral("Nothing to compare: open a program that parses."));
    return false;
  }
  for (bool first : {true, false}) {
    const CompareSpec s = spec(first);
    if ((s.kind == CompareSpec::Kind::TraceFile || s.kind == CompareSpec::Kind::TuningRecord) && s.path.empty()) {
      setStatus(QStringLiteral("Side %1 needs a file: type its path or press …").arg(sideName(first)));
      return false;
    }
  }
  if (m_profile->isRunning()) m_profile->cancel();
  m_measuring = -1;
  CompareInput input;
  input.original = state->schedule.originalState();
  input.currentTrace = state->schedule.trace();
  input.current = state->schedule;
  input.dialect = state->dialect;
  input.a = spec(true);
  input.b = spec(false);
  input.target = m_target->currentData().toString().toStdString();
  // The target's first code format, C where it names none (built whole and moved: an
  // assignment of a short literal here trips GCC 12's -Wrestrict at -O2).
  input.format = [&] {
    for (const views::TargetEntry& t : availableTargets())
      if (t.name == m_target->currentData().toString() && !t.formats.isEmpty()) return t.formats.front().toStdString();
    return std::string(1, 'c');
  }();
  const std::uint64_t generation = ++m_generation;
  setStatus(QStringLiteral("Computing the comparison…"));
  m_jobs->run<std::shared_ptr<const CompareResult>>(
      QStringLiteral("Comparing"),
      [input](std::stop_token stop, const ProgressFn& progress) {
        return std::make_shared<const CompareResult>(computeComparison(input, stop, progress));
      },
      [this, generation](std::shared_ptr<const CompareResult> result) {
        if (generation != m_generation || result->cancelled) return;
        display(std::move(result));
      });
  setBusyUi();
  return true;
}

void CompareWindow::display(std::shared_ptr<const CompareResult> result) {
  if (result != m_result) m_rows.clear();
  m_result = std::move(result);
  const CompareResult& r = *m_result;
  const DiffColors colors = diffColors(m_dark);
  int removed = 0, added = 0, changed = 0;
  for (const auto& e : r.diff.entries)
    (e.kind == ir::DiffKind::Removed ? removed : e.kind == ir::DiffKind::Added ? added : changed) += 1;
  for (bool first : {true, false}) {
    const CompareSideResult& side = first ? r.a : r.b;
    views::TensorIrView* ir = first ? m_irA : m_irB;
    ir->setSnapshot(side.snapshot, std::optional<const ir::StmtNode*>(nullptr));
    if (!side.ok()) ir->setPlainText(qs(side.error));
    QString title = QStringLiteral("<b>%1</b> · %2").arg(sideName(first)).arg(qs(side.name).toHtmlEscaped());
    if (!side.note.empty()) title += QStringLiteral(" <small>(%1)</small>").arg(qs(side.note).toHtmlEscaped());
    (first ? m_titleA : m_titleB)->setText(title);
  }
  setWindowTitle(
      QStringLiteral("Compare %1: %2 vs %3 — Loopscape").arg(m_session->displayName(), qs(r.a.name), qs(r.b.name)));
  applyMarks();
  if (!r.a.ok() || !r.b.ok()) {
    setStatus(QStringLiteral("<span style='color:#c33'>Side %1 has no program: %2</span>")
                  .arg(sideName(!r.a.ok()))
                  .arg(qs(r.a.ok() ? r.b.error : r.a.error).section(u'\n', 0, 0).toHtmlEscaped()));
  } else if (r.diff.empty()) {
    setStatus(QStringLiteral("No structural difference: both sides have the same loops and blocks."));
  } else {
    auto swatch = [](const QColor& c, const QString& text) {
      return QStringLiteral("<span style='background:%1'>&nbsp;%2&nbsp;</span>").arg(c.name(), text);
    };
    setStatus(QStringLiteral("Structural diff: %1 &nbsp; %2 &nbsp; %3 &nbsp; <small>(hover a marked line for "
                             "what changed; selecting a loop on one side selects its match on the other)</small>")
                  .arg(swatch(colors.removed, QStringLiteral("%1 only in A").arg(removed)),
                       swatch(colors.added, QStringLiteral("%1 only in B").arg(added)),
                       swatch(colors.changed, QStringLiteral("%1 changed").arg(changed))));
  }
  showCode();
  showTrees();
  showLoops();
  showMeasurements();
  setBusyUi();
  Q_EMIT comparisonReady();
}

void CompareWindow::applyMarks() {
  if (!m_result) return;
  const CompareResult& r = *m_result;
  const DiffColors colors = diffColors(m_dark);
  for (bool first : {true, false}) {
    const CompareSideResult& side = first ? r.a : r.b;
    std::vector<views::TensorIrView::NodeMark> marks;
    if (side.ok() && r.a.ok() && r.b.ok()) {
      const std::vector<int> byNode = diffMarks(r.diff, *side.snapshot, first);
      for (std::size_t i = 0; i < byNode.size(); ++i) {
        if (byNode[i] < 0) continue;
        const ir::ProgramDiffEntry& e = r.diff.entries[static_cast<std::size_t>(byNode[i])];
        QString note = e.kind == ir::DiffKind::Removed ? QStringLiteral("only in A")
                       : e.kind == ir::DiffKind::Added ? QStringLiteral("only in B")
                                                       : QStringLiteral("changed:");
        for (const std::string& c : e.changes)
          note += QStringLiteral("\n  ") + qs(c);
        marks.push_back({static_cast<int>(i),
                         e.kind == ir::DiffKind::Removed ? colors.removed
                         : e.kind == ir::DiffKind::Added ? colors.added
                                                         : colors.changed,
                         note});
      }
    }
    (first ? m_irA : m_irB)->setMarks(std::move(marks));
  }
}

// ---- generated code -------------------------------------------------------------------

QWidget* CompareWindow::makeCodeTab() {
  auto* tab = new QWidget;
  auto* v = new QVBoxLayout(tab);
  v->setContentsMargins(4, 4, 4, 4);
  m_codeStatus = new QLabel;
  m_codeStatus->setObjectName(QStringLiteral("compareCodeStatus"));
  auto* split = new QSplitter(Qt::Horizontal);
  m_codeA = makeCodeEdit(QStringLiteral("compareCodeA"));
  m_codeB = makeCodeEdit(QStringLiteral("compareCodeB"));
  m_highlightA = new views::CodeHighlighter(m_codeA->document(), views::CodeHighlighter::Language::C);
  m_highlightB = new views::CodeHighlighter(m_codeB->document(), views::CodeHighlighter::Language::C);
  split->addWidget(m_codeA);
  split->addWidget(m_codeB);
  v->addWidget(m_codeStatus);
  v->addWidget(split, 1);
  for (bool first : {true, false})
    connect((first ? m_codeA : m_codeB)->verticalScrollBar(), &QScrollBar::valueChanged, this,
            [this, first] { syncCodeScroll(first); });
  return tab;
}

void CompareWindow::showCode() {
  const CompareResult& r = *m_result;
  const DiffColors colors = diffColors(m_dark);
  int onlyA = 0, onlyB = 0;
  for (const auto& e : r.codeDiff)
    (e.op == compare::LineOp::Removed ? onlyA
     : e.op == compare::LineOp::Added ? onlyB
                                      : onlyA) += e.op == compare::LineOp::Same ? 0 : 1;
  for (bool first : {true, false}) {
    const CompareSideResult& side = first ? r.a : r.b;
    QPlainTextEdit* edit = first ? m_codeA : m_codeB;
    views::CodeHighlighter* hl = first ? m_highlightA : m_highlightB;
    hl->setLanguage(views::CodeHighlighter::languageOf(qs(r.format)));
    edit->setPlainText(side.ok() || !side.code.empty() ? qs(side.code) : qs(side.error));
    QList<QTextEdit::ExtraSelection> marks;
    for (const auto& e : r.codeDiff) {
      const bool mine = first ? e.op == compare::LineOp::Removed : e.op == compare::LineOp::Added;
      if (!mine) continue;
      QTextEdit::ExtraSelection sel;
      sel.cursor = QTextCursor(edit->document()->findBlockByNumber((first ? e.a : e.b) - 1));
      sel.format.setBackground(first ? colors.removed : colors.added);
      sel.format.setProperty(QTextFormat::FullWidthSelection, true);
      marks.push_back(sel);
    }
    edit->setExtraSelections(marks);
  }
  if (!r.a.codeOk || !r.b.codeOk)
    m_codeStatus->setText(
        QStringLiteral("%1 (%2): side %3 has no code.").arg(qs(r.target), qs(r.format)).arg(sideName(!(r.a.codeOk))));
  else if (onlyA + onlyB == 0)
    m_codeStatus->setText(QStringLiteral("%1 (%2): the same code on both sides.").arg(qs(r.target), qs(r.format)));
  else
    m_codeStatus->setText(QStringLiteral("%1 (%2): %3 lines only in A (red), %4 only in B (green); the other lines "
                                         "are the same. Scrolling one side scrolls the other.")
                              .arg(qs(r.target), qs(r.format))
                              .arg(onlyA)
                              .arg(onlyB));
}

void CompareWindow::syncCodeScroll(bool fromFirst) {
  if (m_syncing || !m_result || m_result->codeDiff.empty()) return;
  m_syncing = true;
  QPlainTextEdit* from = fromFirst ? m_codeA : m_codeB;
  QPlainTextEdit* to = fromFirst ? m_codeB : m_codeA;
  const int top = from->verticalScrollBar()->value() + 1;
  to->verticalScrollBar()->setValue(std::max(0, alignedLine(m_result->codeDiff, top, fromFirst) - 1));
  m_syncing = false;
}

// ---- schedule trees -------------------------------------------------------------------

void CompareWindow::showTrees() {
  const CompareResult& r = *m_result;
  m_pairs->setRowCount(0);
  QStringList notes;
  if (!r.a.treeError.empty()) notes << QStringLiteral("A has no schedule tree: %1").arg(qs(r.a.treeError));
  if (!r.b.treeError.empty()) notes << QStringLiteral("B has no schedule tree: %1").arg(qs(r.b.treeError));
  const int paired =
      static_cast<int>(std::count_if(r.pairs.begin(), r.pairs.end(), [](const auto& p) { return p.a && p.b; }));
  notes.prepend(QStringLiteral("Bands of the two isl schedule trees, paired by their member loops and statements "
                               "(%1 paired, %2 alone). Click a row to select its first shared loop on both sides.")
                    .arg(paired)
                    .arg(static_cast<int>(r.pairs.size()) - paired));
  m_treeStatus->setText(notes.join(u'\n'));
  const DiffColors colors = diffColors(m_dark);
  for (const compare::BandPair& p : r.pairs) {
    const int row = m_pairs->rowCount();
    m_pairs->insertRow(row);
    m_pairs->setItem(row, 0, item(p.a ? qs(compare::bandText(*p.a)) : QStringLiteral("—")));
    m_pairs->setItem(row, 1, item(p.b ? qs(compare::bandText(*p.b)) : QStringLiteral("—")));
    m_pairs->setItem(row, 2, item(qs(p.why())));
    if (!p.a || !p.b)
      for (int c = 0; c < 3; ++c)
        m_pairs->item(row, c)->setBackground(p.a ? colors.removed : colors.added);
  }
  m_pairs->resizeColumnsToContents();
  disconnect(m_pairs, &QTableWidget::cellClicked, this, nullptr);
  connect(m_pairs, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (!m_result || row < 0 || row >= static_cast<int>(m_result->pairs.size())) return;
    const compare::BandPair& p = m_result->pairs[static_cast<std::size_t>(row)];
    const std::vector<std::string>& members = !p.sharedMembers.empty() ? p.sharedMembers
                                              : p.a                    ? p.a->members
                                                                       : p.b->members;
    if (members.empty()) return;
    const bool onA = p.a.has_value();
    const auto& snap = (onA ? m_irA : m_irB)->snapshot();
    if (!snap) return;
    (onA ? m_irA : m_irB)->selectNode(snap->find(views::NodeInfo::Kind::Loop, members.front()));
  });
}

// ---- loops ----------------------------------------------------------------------------

QWidget* CompareWindow::makeLoopsTab() {
  auto* tab = new QWidget;
  auto* h = new QHBoxLayout(tab);
  h->setContentsMargins(4, 4, 4, 4);
  for (bool first : {true, false}) {
    auto* pane = new QWidget;
    auto* v = new QVBoxLayout(pane);
    v->setContentsMargins(0, 0, 0, 0);
    auto* summary = new QLabel;
    summary->setObjectName(first ? QStringLiteral("compareLoopsSummaryA") : QStringLiteral("compareLoopsSummaryB"));
    auto* table = makeTable(
        first ? QStringLiteral("compareLoopsA") : QStringLiteral("compareLoopsB"),
        {QStringLiteral("loop"), QStringLiteral("kind"), QStringLiteral("parallel"), QStringLiteral("carries")});
    v->addWidget(summary);
    v->addWidget(table, 1);
    h->addWidget(pane);
    (first ? m_loopsA : m_loopsB) = table;
    (first ? m_loopsSummaryA : m_loopsSummaryB) = summary;
    connect(table, &QTableWidget::cellClicked, this, [this, first](int row, int) {
      const auto& snap = (first ? m_irA : m_irB)->snapshot();
      if (snap) (first ? m_irA : m_irB)->selectNode(snap->loopByOrdinal(row));
    });
  }
  return tab;
}

void CompareWindow::showLoops() {
  const CompareResult& r = *m_result;
  for (bool first : {true, false}) {
    const CompareSideResult& side = first ? r.a : r.b;
    QTableWidget* t = first ? m_loopsA : m_loopsB;
    (first ? m_loopsSummaryA : m_loopsSummaryB)
        ->setText(QStringLiteral("<b>%1</b>: %2").arg(sideName(first)).arg(qs(side.loops.summary).toHtmlEscaped()));
    t->setRowCount(0);
    // The loop column coloured as the loop's line in the TensorIR (its diff mark).
    const std::vector<int> marks =
        side.ok() && r.a.ok() && r.b.ok() ? diffMarks(r.diff, *side.snapshot, first) : std::vector<int>{};
    const DiffColors colors = diffColors(m_dark);
    for (const compare::LoopRow& l : side.loops.loops) {
      const int row = t->rowCount();
      t->insertRow(row);
      t->setItem(row, 0, item(QString(2 * l.depth, u' ') + qs(l.name)));
      t->setItem(row, 1, item(qs(l.kind)));
      t->setItem(row, 2, item(l.parallel ? QStringLiteral("yes") : QStringLiteral("no")));
      t->setItem(row, 3, item(qs(l.carries)));
      const int node = side.ok() ? side.snapshot->loopByOrdinal(row) : -1;
      if (node >= 0 && node < static_cast<int>(marks.size()) && marks[static_cast<std::size_t>(node)] >= 0) {
        const ir::DiffKind kind = r.diff.entries[static_cast<std::size_t>(marks[static_cast<std::size_t>(node)])].kind;
        t->item(row, 0)->setBackground(kind == ir::DiffKind::Removed ? colors.removed
                                       : kind == ir::DiffKind::Added ? colors.added
                                                                     : colors.changed);
      }
      if (l.marked) {
        for (int c = 0; c < 4; ++c)
          t->item(row, c)->setForeground(QColor(m_dark ? 0xff7070 : 0xbb0000));
        t->item(row, 1)->setToolTip(QStringLiteral("marked %1 but carries dependences").arg(qs(l.kind)));
      }
    }
    t->resizeColumnsToContents();
  }
}

// ---- selection and scrolling ----------------------------------------------------------

void CompareWindow::onNodeSelected(bool first, int index) {
  if (!m_result || m_syncing) return;
  m_syncing = true;
  views::TensorIrView* from = first ? m_irA : m_irB;
  views::TensorIrView* to = first ? m_irB : m_irA;
  int match = -1;
  if (from->snapshot() && to->snapshot())
    match = matchingNode(m_result->diff, *from->snapshot(), index, *to->snapshot(), first);
  to->selectNode(match);
  // The loops tables and the code follow.
  for (bool side : {true, false}) {
    views::TensorIrView* ir = side ? m_irA : m_irB;
    const int node = side == first ? index : match;
    QTableWidget* table = side ? m_loopsA : m_loopsB;
    const int ordinal = ir->snapshot() && node >= 0 ? ir->snapshot()->ordinalOf(node) : -1;
    if (ordinal >= 0 && ordinal < table->rowCount())
      table->selectRow(ordinal);
    else
      table->clearSelection();
    QPlainTextEdit* code = side ? m_codeA : m_codeB;
    const CompareSideResult& res = side ? m_result->a : m_result->b;
    QList<QTextEdit::ExtraSelection> marks;
    for (const auto& sel : code->extraSelections())
      if (sel.format.property(QTextFormat::UserProperty).toInt() != 1) marks.push_back(sel);
    const ir::Expr var = views::loopVarOf(ir->snapshot().get(), node);
    int firstLine = 0;
    for (const views::CodeLoopLines& l : res.codeMap.loops) {
      if (!var.defined() || l.loopVar.get() != var.get()) continue;
      for (int line = l.firstLine; line <= l.lastLine; ++line) {
        QTextEdit::ExtraSelection sel;
        sel.cursor = QTextCursor(code->document()->findBlockByNumber(line - 1));
        sel.cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        sel.format.setBackground(m_dark ? QColor(40, 90, 150) : QColor(255, 225, 140));
        sel.format.setProperty(QTextFormat::UserProperty, 1);
        marks.push_back(sel);
      }
      if (!firstLine) firstLine = l.firstLine;
    }
    code->setExtraSelections(marks);
    if (firstLine) {
      QTextCursor c(code->document()->findBlockByNumber(firstLine - 1));
      code->setTextCursor(c);
      code->centerCursor();
    }
  }
  m_syncing = false;
  syncProgramScroll(first);
}

void CompareWindow::syncProgramScroll(bool fromFirst) {
  if (m_syncing || !m_result) return;
  views::TensorIrView* from = fromFirst ? m_irA : m_irB;
  views::TensorIrView* to = fromFirst ? m_irB : m_irA;
  const auto& a = from->snapshot();
  const auto& b = to->snapshot();
  if (!a || !b) return;
  const int top = from->verticalScrollBar()->value() + 1;
  // The first node at or below the top line with a match on the other side lines up.
  for (std::size_t i = 0; i < a->nodes.size(); ++i) {
    if (a->nodes[i].line < top) continue;
    const int match = matchingNode(m_result->diff, *a, static_cast<int>(i), *b, fromFirst);
    if (match < 0) continue;
    m_syncing = true;
    to->verticalScrollBar()->setValue(
        std::max(0, b->nodes[static_cast<std::size_t>(match)].line - (a->nodes[i].line - top) - 1));
    m_syncing = false;
    return;
  }
}

// ---- measurements ---------------------------------------------------------------------

QWidget* CompareWindow::makeMeasureTab() {
  auto* tab = new QWidget;
  auto* v = new QVBoxLayout(tab);
  v->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout;
  m_measureButton = new QPushButton(QStringLiteral("Measure"));
  m_measureButton->setObjectName(QStringLiteral("compareMeasureButton"));
  m_measureButton->setToolTip(QStringLiteral("Compile both sides with the target, verify them against the reference "
                                             "and time them (in the isolated worker, in the background)"));
  m_cancelButton = new QPushButton(QStringLiteral("Cancel"));
  m_cancelButton->setObjectName(QStringLiteral("compareCancelButton"));
  m_sizes = new QLineEdit;
  m_sizes->setObjectName(QStringLiteral("compareSizes"));
  m_sizes->setPlaceholderText(QStringLiteral("e.g. n=64"));
  m_sizes->setToolTip(QStringLiteral("Values of the program's symbolic sizes for the measurement, e.g. n=64 m=8"));
  m_sizes->setMaximumWidth(200);
  m_repeat = new QSpinBox;
  m_repeat->setObjectName(QStringLiteral("compareRepeat"));
  m_repeat->setRange(1, 100);
  m_repeat->setValue(5);
  m_repeat->setPrefix(QStringLiteral("repeats: "));
  m_measureStatus = new QLabel;
  m_measureStatus->setObjectName(QStringLiteral("compareMeasureStatus"));
  bar->addWidget(m_measureButton);
  bar->addWidget(m_cancelButton);
  bar->addWidget(new QLabel(QStringLiteral("Sizes:")));
  bar->addWidget(m_sizes);
  bar->addWidget(m_repeat);
  bar->addWidget(m_measureStatus, 1);
  v->addLayout(bar);
  auto* split = new QSplitter(Qt::Horizontal);
  m_measureTable = makeTable(QStringLiteral("compareMeasureTable"),
                             {QStringLiteral("side"), QStringLiteral("schedule"), QStringLiteral("median ms"),
                              QStringLiteral("GFLOP/s"), QStringLiteral("% of peak"), QStringLiteral("verified")});
  m_chart = new views::CompareChart;
  split->addWidget(m_measureTable);
  split->addWidget(m_chart);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  v->addWidget(split, 1);
  connect(m_measureButton, &QPushButton::clicked, this, [this] { measure(); });
  connect(m_cancelButton, &QPushButton::clicked, this, &CompareWindow::cancel);
  return tab;
}

bool CompareWindow::measure() {
  if (!m_result || !m_result->a.ok() || !m_result->b.ok() || m_measuring >= 0 || m_profile->isRunning()) return false;
  if (m_target->currentData().toString().isEmpty()) {
    m_measureStatus->setText(QStringLiteral("No usable target plugin."));
    return false;
  }
  m_rows.clear();
  m_measureGeneration = m_generation;
  startMeasuring(0);
  return true;
}

void CompareWindow::startMeasuring(int side) {
  const CompareSideResult& s = side == 0 ? m_result->a : m_result->b;
  ProfileRequest request;
  request.original = m_result->original;
  request.scheduled = s.snapshot->func;
  request.step = side;
  request.stepLabel = std::string(side == 0 ? "A · " : "B · ") + s.name;
  request.target = m_target->currentData().toString().toStdString();
  request.sizes = m_sizes->text().toStdString();
  request.repeat = m_repeat->value();
  request.verify = true;
  m_measuring = side;
  if (!m_profile->start(std::move(request))) {
    m_measuring = -1;
    m_measureStatus->setText(QStringLiteral("A measurement is already running."));
  }
  m_tabs->setCurrentIndex(3);
  setBusyUi();
  showMeasurements();
}

void CompareWindow::showMeasurements() {
  m_measureTable->setRowCount(0);
  std::vector<views::CompareBar> bars;
  if (!m_result) {
    m_chart->setBars({});
    return;
  }
  for (int side = 0; side < 2; ++side) {
    const CompareSideResult& s = side == 0 ? m_result->a : m_result->b;
    views::CompareBar bar;
    bar.label = side == 0 ? QStringLiteral("A") : QStringLiteral("B");
    bar.name = qs(s.name);
    bar.color = sideColor(side == 0);
    const views::ProfileRow* row =
        side < static_cast<int>(m_rows.size()) ? &m_rows[static_cast<std::size_t>(side)] : nullptr;
    m_measureTable->insertRow(side);
    m_measureTable->setItem(side, 0, item(bar.label));
    m_measureTable->setItem(side, 1, item(bar.name));
    const Qt::Alignment right = Qt::AlignRight | Qt::AlignVCenter;
    if (row && row->timed()) {
      bar.medianMs = row->medianMs;
      bar.gflops = row->gflops;
      m_measureTable->setItem(side, 2, item(QString::number(row->medianMs, 'g', 4), right));
      m_measureTable->setItem(side, 3, item(QString::number(row->gflops, 'f', 2), right));
      m_measureTable->setItem(
          side, 4,
          item(row->percentOfPeak ? QString::number(*row->percentOfPeak, 'f', 1) : QStringLiteral("—"), right));
    } else {
      for (int c = 2; c < 5; ++c)
        m_measureTable->setItem(side, c, item(QStringLiteral("—"), right));
      bar.status = m_measuring == side ? QStringLiteral("measuring…")
                   : row               ? qs(row->message)
                         : (m_measuring >= 0 ? QStringLiteral("waiting") : QStringLiteral("not measured"));
    }
    QTableWidgetItem* result = item(row ? qs(row->message) : QStringLiteral("—"));
    if (row && row->status != views::ProfileRow::Status::Verified &&
        row->status != views::ProfileRow::Status::NotVerified)
      result->setForeground(QColor(m_dark ? 0xff7070 : 0xbb0000));
    if (row && !row->details.empty()) result->setToolTip(qs(row->details));
    m_measureTable->setItem(side, 5, result);
    bars.push_back(std::move(bar));
  }
  m_measureTable->resizeColumnsToContents();
  m_chart->setBars(std::move(bars));
  if (m_measuring < 0 && m_rows.size() == 2 && m_rows[0].timed() && m_rows[1].timed() && m_rows[0].medianMs > 0) {
    const double ratio = m_rows[1].medianMs / m_rows[0].medianMs;
    m_measureStatus->setText(QStringLiteral("B/A median time: %1 (%2 is faster) · %3")
                                 .arg(ratio, 0, 'f', 3)
                                 .arg(sideName(ratio > 1))
                                 .arg(qs(m_rows[0].target)));
  } else if (m_measuring < 0 && !m_rows.empty()) {
    m_measureStatus->setText(QStringLiteral("Stopped: %1").arg(qs(m_rows.back().message)));
  }
}

void CompareWindow::cancel() {
  if (m_jobs->busy()) {
    m_jobs->cancelAll();
    ++m_generation;
    setStatus(QStringLiteral("Cancelled."));
  }
  // A cancelled measurement still delivers its row ("cancelled while ..."), which ends it.
  if (m_profile->isRunning()) m_profile->cancel();
  setBusyUi();
}

bool CompareWindow::isBusy() const { return m_jobs->busy() || m_profile->isRunning() || m_measuring >= 0; }

bool CompareWindow::waitIdle(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (isBusy()) {
    if (timer.elapsed() > timeoutMs) return false;
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    m_jobs->waitForIdle(20);
    m_profile->waitForIdle(20);
  }
  QApplication::processEvents();
  return true;
}

void CompareWindow::setBusyUi() {
  const bool computing = m_jobs->busy();
  const bool measuring = m_measuring >= 0 || m_profile->isRunning();
  m_compareButton->setEnabled(!computing);
  m_polyButton->setEnabled(!computing);
  m_measureButton->setEnabled(!computing && !measuring && m_result && m_result->a.ok() && m_result->b.ok());
  m_cancelButton->setEnabled(computing || measuring);
}

void CompareWindow::setStatus(const QString& text) { m_status->setText(text); }

QString CompareWindow::status() const { return m_status->text(); }

bool CompareWindow::showTab(const QString& name) {
  const QStringList names = {QStringLiteral("code"), QStringLiteral("trees"), QStringLiteral("loops"),
                             QStringLiteral("measure")};
  const int index = static_cast<int>(names.indexOf(name));
  if (index < 0) return false;
  m_tabs->setCurrentIndex(index);
  return true;
}

void CompareWindow::setDark(bool dark) {
  m_dark = dark;
  m_irA->setDark(dark);
  m_irB->setDark(dark);
  m_highlightA->setDark(dark);
  m_highlightB->setDark(dark);
  if (m_result) display(m_result);
}

void CompareWindow::setPeakProvider(PeakProvider provider) { m_profile->setPeakProvider(std::move(provider)); }

} // namespace loopscape::gui
