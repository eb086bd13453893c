#include "views/tune_view.h"

#include "views/flow_layout.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QGraphicsLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <climits>
#include <cmath>

namespace loopscape::views {

namespace {

QChart* makeChart(const QString& name) {
  auto* chart = new QChart;
  chart->setObjectName(name);
  chart->setMargins(QMargins(2, 2, 2, 2));
  chart->setBackgroundRoundness(0);
  chart->layout()->setContentsMargins(0, 0, 0, 0); // the dock is short: every pixel for the plot
  chart->legend()->setAlignment(Qt::AlignTop);
  return chart;
}

QValueAxis* makeAxis(const QString& title, const QString& format) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setLabelFormat(format);
  axis->setTickCount(5);
  return axis;
}

/// [0, max(10, n)] with ticks at whole numbers 1, 2 or 5 times a power of ten apart, at
/// most 5 intervals.
void setTrialRange(QValueAxis* axis, int n) {
  const int top = std::max(10, n);
  double step = 1;
  while (top / step > 5 && top / (2 * step) > 5 && top / (5 * step) > 5)
    step *= 10;
  if (top / step > 5) step *= top / (2 * step) <= 5 ? 2 : 5;
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(step);
  axis->setRange(0, std::ceil(top / step) * step);
}

/// [0, a little above `top`], with ticks at round numbers.
void setValueRange(QValueAxis* axis, double top) {
  axis->setTickCount(5);
  axis->setRange(0, top > 0 ? top * 1.05 : 1);
  axis->applyNiceNumbers();
}

QSpinBox* spin(QWidget* parent, const QString& name, int lo, int hi, int value, const QString& tip) {
  auto* s = new QSpinBox(parent);
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setValue(value);
  s->setToolTip(tip);
  return s;
}

} // namespace

TuneView::TuneView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("tuneView"));
  m_model = new TuneModel(this);

  // ---- the options bar ----
  m_target = new QComboBox(this);
  m_target->setObjectName(QStringLiteral("tuneTarget"));
  m_target->setToolTip(QStringLiteral("The target plugin that compiles and runs the candidates"));
  m_strategy = new QComboBox(this);
  m_strategy->setObjectName(QStringLiteral("tuneStrategy"));
  const std::pair<const char*, const char*> strategies[] = {
      {"mixed", "Evolutionary search over both families: TIR sketches and the polyhedral scheduler"},
      {"evolutionary", "MetaSchedule's evolutionary search over the TIR sketches, ranked by the cost model"},
      {"annealing", "AutoTVM's simulated annealing over the TIR sketches"},
      {"poly", "Evolutionary search over poly_optimize's tile sizes only"},
      {"random", "Random samples, no cost model: the baseline"}};
  for (const auto& [name, tip] : strategies) {
    m_strategy->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
    m_strategy->setItemData(m_strategy->count() - 1, QString::fromLatin1(tip), Qt::ToolTipRole);
  }
  m_strategy->setToolTip(QStringLiteral("How candidates are generated and chosen"));
  m_costModel = new QComboBox(this);
  m_costModel->setObjectName(QStringLiteral("tuneModel"));
  const std::pair<const char*, const char*> models[] = {
      {"xgb", "XGBoost over Ansor-style features of each candidate's stores; it learns after each round and is "
              "kept beside the records log"},
      {"prior", "The prior alone: cycles estimated from the vector unit, the accumulator chains and the parallel "
                "loops of each candidate; it learns nothing"},
      {"random", "Random scores that learn nothing: the baseline the XGBoost model is compared with"}};
  for (const auto& [name, tip] : models) {
    m_costModel->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
    m_costModel->setItemData(m_costModel->count() - 1, QString::fromLatin1(tip), Qt::ToolTipRole);
  }
  m_costModel->setToolTip(QStringLiteral("The cost model that ranks candidates before they are measured (the random "
                                         "strategy uses none)"));
  m_trials = spin(this, QStringLiteral("tuneTrials"), 1, 100000, 64, QStringLiteral("Candidates to measure"));
  m_batch = spin(this, QStringLiteral("tuneBatch"), 1, 4096, 16,
                 QStringLiteral("Candidates measured per round; the cost model learns after each round"));
  m_population = spin(this, QStringLiteral("tunePopulation"), 1, 65536, 64,
                      QStringLiteral("Candidates evolved per round, of which the best predicted are measured (the "
                                     "random strategy draws fresh samples only)"));
  m_threads = spin(this, QStringLiteral("tuneThreads"), 0, 4096, 0,
                   QStringLiteral("Threads of parallel loops in the candidates (0: all cores)"));
  m_threads->setSpecialValueText(QStringLiteral("all"));
  m_threads->setMaximum(std::max(1, QThread::idealThreadCount()));
  m_seed = spin(this, QStringLiteral("tuneSeed"), 0, INT_MAX, 1,
                QStringLiteral("Seed of the search and of the cost model: the same seed draws the same candidates "
                               "until the measured times steer the search"));
  m_timeBudget = spin(this, QStringLiteral("tuneTimeBudget"), 0, 999999, 0,
                      QStringLiteral("Stop the search after this many seconds, even before Trials are measured "
                                     "(0: no limit)"));
  m_timeBudget->setSuffix(QStringLiteral(" s"));
  m_timeBudget->setSpecialValueText(QStringLiteral("no limit"));
  m_fastMath = new QCheckBox(QStringLiteral("Fast &math"), this);
  m_fastMath->setObjectName(QStringLiteral("tuneFastMath"));
  m_fastMath->setToolTip(QStringLiteral("Compile the candidates with fast-math (as `loopscape-cli run --fast-math`); "
                                        "their records say so"));
  m_warmStart = new QCheckBox(QStringLiteral("P&rior first"), this);
  m_warmStart->setObjectName(QStringLiteral("tuneWarmStart"));
  m_warmStart->setChecked(true);
  m_warmStart->setToolTip(QStringLiteral("Rank the first batch by the prior (estimated cycles) until the cost model "
                                         "has learnt; unchecked, the first batch is a random draw, as in "
                                         "MetaSchedule (`loopscape-cli tune --no-prior`)"));
  m_records = new QLineEdit(this);
  m_records->setObjectName(QStringLiteral("tuneRecords"));
  m_records->setPlaceholderText(QStringLiteral("records log (optional)"));
  m_records->setToolTip(QStringLiteral("Tuning log (JSON lines): every measured candidate is appended; "
                                       "Resume also starts from the log's earlier records of this program"));
  m_records->setClearButtonEnabled(true);
  m_records->setMinimumWidth(m_records->fontMetrics().horizontalAdvance(m_records->placeholderText()) + 36);
  m_records->setMaximumWidth(260);
  m_browse = new QToolButton(this);
  m_browse->setObjectName(QStringLiteral("tuneBrowseRecords"));
  m_browse->setText(QStringLiteral("…"));
  m_browse->setToolTip(QStringLiteral("Choose the records log"));
  m_start = new QPushButton(QStringLiteral("Start"), this);
  m_start->setObjectName(QStringLiteral("tuneStart"));
  m_start->setToolTip(QStringLiteral("A fresh search on the current program (its original, unscheduled form)"));
  m_resume = new QPushButton(QStringLiteral("Resume"), this);
  m_resume->setObjectName(QStringLiteral("tuneResume"));
  m_resume->setToolTip(QStringLiteral("Continue the search: start from the candidates measured so far and the "
                                      "log's records, and measure Trials more"));
  m_stop = new QPushButton(QStringLiteral("Stop"), this);
  m_stop->setObjectName(QStringLiteral("tuneStop"));
  m_stop->setToolTip(QStringLiteral("Stop after the candidate being measured; every record is kept"));
  m_apply = new QPushButton(QStringLiteral("Apply"), this);
  m_apply->setObjectName(QStringLiteral("tuneApply"));
  m_apply->setToolTip(QStringLiteral("Make the selected candidate's trace the workbench trace (one undoable step; "
                                     "double-clicking a row does the same)"));

  // The options, each label with its field, wrap onto as many rows as the dock's width
  // needs; the records log and the buttons last, together.
  m_bar = new QWidget(this);
  m_bar->setObjectName(QStringLiteral("tuneOptionsBar"));
  auto* bar = new FlowLayout(m_bar, 10, 3);
  bar->setContentsMargins(0, 0, 0, 0);
  auto field = [this, bar](const QString& text, QWidget* input) {
    auto* box = new QWidget(m_bar);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(4);
    if (!text.isEmpty()) {
      auto* l = new QLabel(text, box);
      l->setBuddy(input);
      row->addWidget(l);
    }
    row->addWidget(input);
    bar->addWidget(box);
    return row;
  };
  field(QStringLiteral("&Target:"), m_target);
  field(QStringLiteral("Strate&gy:"), m_strategy);
  field(QStringLiteral("M&odel:"), m_costModel);
  field(QStringLiteral("Tria&ls:"), m_trials);
  field(QStringLiteral("&Batch:"), m_batch);
  field(QStringLiteral("&Population:"), m_population);
  field(QStringLiteral("T&hreads:"), m_threads);
  field(QStringLiteral("See&d:"), m_seed);
  field(QStringLiteral("B&udget:"), m_timeBudget);
  field(QString(), m_fastMath);
  field(QString(), m_warmStart);

  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("tuneProgress"));
  m_progress->setMaximumWidth(120);
  m_progress->setFormat(QStringLiteral("%v/%m"));
  m_progress->hide();
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("tuneStatus"));
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status->setWordWrap(true);
  m_status->setMinimumWidth(0);
  QHBoxLayout* actions = field(QString(), m_records);
  for (QWidget* w : std::initializer_list<QWidget*>{m_browse, m_start, m_resume, m_stop})
    actions->addWidget(w);
  auto* statusRow = new QHBoxLayout;
  statusRow->addWidget(m_progress);
  statusRow->addWidget(m_status, 1);
  statusRow->addWidget(m_apply);

  // ---- the table ----
  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("tuneTable"));
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
  QHeaderView* header = m_table->horizontalHeader();
  for (int c = 0; c < TuneModel::ErrorColumn; ++c)
    header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  header->setStretchLastSection(true);
  // ResizeToContents alone left the columns at their titles' widths while a search added
  // rows ("0…" for every time, "tir(p…" for a sketch): they are fitted to the rows (the
  // first hundred, the best first) once the rows that arrived together are in.
  header->setResizeContentsPrecision(100);
  m_fitColumns = new QTimer(this);
  m_fitColumns->setSingleShot(true);
  m_fitColumns->setInterval(0);
  connect(m_fitColumns, &QTimer::timeout, this, [this] {
    for (int c = 0; c < TuneModel::ErrorColumn; ++c)
      m_table->resizeColumnToContents(c);
  });
  auto fitSoon = [this] { m_fitColumns->start(); };
  connect(m_model, &QAbstractItemModel::rowsInserted, m_fitColumns, fitSoon);
  connect(m_model, &QAbstractItemModel::dataChanged, m_fitColumns, fitSoon); // the best row turns bold
  connect(m_model, &QAbstractItemModel::modelReset, m_fitColumns, fitSoon);
  m_table->setWordWrap(false);
  m_table->setShowGrid(false);
  m_table->setAlternatingRowColors(true);
  m_table->setToolTip(QStringLiteral("Double-click a candidate to make its trace the workbench trace"));
  m_table->setMinimumWidth(160);

  // ---- the charts ----
  m_curveChart = makeChart(QStringLiteral("tuneCurveChart"));
  m_best = new QLineSeries;
  m_best->setObjectName(QStringLiteral("tuneBestSeries"));
  m_best->setName(QStringLiteral("best so far"));
  m_trialsSeries = new QScatterSeries;
  m_trialsSeries->setObjectName(QStringLiteral("tuneTrialSeries"));
  m_trialsSeries->setName(QStringLiteral("each trial"));
  m_trialsSeries->setMarkerSize(5);
  m_curveChart->addSeries(m_trialsSeries);
  m_curveChart->addSeries(m_best);
  m_curveChart->legend()->hide(); // the line is the best so far, the dots each trial: the tooltip says so
  m_curveX = makeAxis(QStringLiteral("trials"), QStringLiteral("%d"));
  m_curveY = makeAxis(QString(), QStringLiteral("%.3g")); // setRateUnit titles it
  m_curveChart->addAxis(m_curveX, Qt::AlignBottom);
  m_curveChart->addAxis(m_curveY, Qt::AlignLeft);
  for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(m_best), static_cast<QAbstractSeries*>(m_trialsSeries)}) {
    s->attachAxis(m_curveX);
    s->attachAxis(m_curveY);
  }
  m_curveView = new QChartView(m_curveChart, this);
  m_curveView->setObjectName(QStringLiteral("tuneCurveView"));
  m_curveView->setRenderHint(QPainter::Antialiasing);
  m_curveView->setMinimumWidth(160);

  m_scatterChart = makeChart(QStringLiteral("tuneScatterChart"));
  m_scatterChart->setTitle(QStringLiteral("Predicted against measured"));
  m_tirPoints = new QScatterSeries;
  m_tirPoints->setObjectName(QStringLiteral("tuneTirPoints"));
  m_tirPoints->setName(QStringLiteral("TIR"));
  m_tirPoints->setMarkerSize(7);
  m_polyPoints = new QScatterSeries;
  m_polyPoints->setObjectName(QStringLiteral("tunePolyPoints"));
  m_polyPoints->setName(QStringLiteral("poly"));
  m_polyPoints->setMarkerSize(7);
  m_polyPoints->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  m_scatterChart->addSeries(m_tirPoints);
  m_scatterChart->addSeries(m_polyPoints);
  m_scatterX = makeAxis(QStringLiteral("predicted score"), QStringLiteral("%.3g"));
  m_scatterY = makeAxis(QString(), QStringLiteral("%.3g"));
  m_scatterChart->addAxis(m_scatterX, Qt::AlignBottom);
  m_scatterChart->addAxis(m_scatterY, Qt::AlignLeft);
  for (QScatterSeries* s : {m_tirPoints, m_polyPoints}) {
    s->attachAxis(m_scatterX);
    s->attachAxis(m_scatterY);
  }
  m_scatterView = new QChartView(m_scatterChart, this);
  m_scatterView->setObjectName(QStringLiteral("tuneScatterView"));
  m_scatterView->setRenderHint(QPainter::Antialiasing);
  m_scatterView->setMinimumWidth(160);
  setRateUnit(QStringLiteral("GFLOP/s"));

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("tuneSplitter"));
  split->addWidget(m_table);
  split->addWidget(m_curveView);
  split->addWidget(m_scatterView);
  split->setStretchFactor(0, 5);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 3);
  split->setSizes({500, 300, 300});
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  layout->addWidget(m_bar);
  layout->addLayout(statusRow);
  layout->addWidget(split, 1);

  connect(m_start, &QPushButton::clicked, this, [this] { Q_EMIT startRequested(false); });
  connect(m_resume, &QPushButton::clicked, this, [this] { Q_EMIT startRequested(true); });
  connect(m_stop, &QPushButton::clicked, this, &TuneView::stopRequested);
  connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    if (index.isValid()) Q_EMIT candidateActivated(index.row());
  });
  connect(m_apply, &QPushButton::clicked, this, [this] {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (!rows.isEmpty()) Q_EMIT candidateActivated(rows.front().row());
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &TuneView::updateButtons);
  connect(m_model, &QAbstractItemModel::modelReset, this, &TuneView::updateButtons);
  connect(m_records, &QLineEdit::textChanged, this, &TuneView::updateButtons);
  connect(m_strategy, &QComboBox::currentIndexChanged, this, &TuneView::updateButtons);
  connect(m_browse, &QToolButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, QStringLiteral("Tuning records log"), m_records->text(),
                                     QStringLiteral("Tuning records (*.jsonl *.json *.log);;All files (*)"), nullptr,
                                     QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty()) m_records->setText(path);
  });
  setDark(false);
  clear();
  setStatus(QStringLiteral("Start searches for a fast schedule of the current program: candidates are compiled and "
                           "timed for real in the background."));
}

void TuneView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // The rows the options need at this width are the least the bar may have: the dock is
  // not squeezed below them (the status and the table would be drawn over the bar).
  const QMargins m = layout()->contentsMargins();
  m_bar->setMinimumHeight(m_bar->layout()->heightForWidth(std::max(1, width() - m.left() - m.right())));
}

int TuneView::scatterPointCount() const { return m_tirPoints->count() + m_polyPoints->count(); }

void TuneView::setTargets(const std::vector<TargetEntry>& targets) {
  const QString previous = m_target->currentData().toString();
  m_targets = targets;
  const QSignalBlocker block(m_target);
  fillTargetCombo(m_target, targets);
  setCurrentTarget(previous);
  updateButtons();
}

void TuneView::setCurrentTarget(const QString& name) { selectTarget(m_target, m_targets, name); }

TuneViewOptions TuneView::options() const {
  TuneViewOptions o;
  o.target = m_target->currentData().toString();
  o.strategy = m_strategy->currentData().toString();
  o.trials = m_trials->value();
  o.batch = m_batch->value();
  o.model = m_costModel->currentData().toString();
  o.population = m_population->value();
  o.threads = m_threads->value();
  o.seed = static_cast<quint64>(m_seed->value());
  o.timeBudget = m_timeBudget->value();
  o.fastMath = m_fastMath->isChecked();
  o.warmStart = m_warmStart->isChecked();
  o.records = m_records->text().trimmed();
  return o;
}

void TuneView::setOptions(const TuneViewOptions& options) {
  if (!options.target.isEmpty()) setCurrentTarget(options.target);
  if (const int i = m_strategy->findData(options.strategy); i >= 0) m_strategy->setCurrentIndex(i);
  m_trials->setValue(options.trials);
  m_batch->setValue(options.batch);
  if (const int i = m_costModel->findData(options.model); i >= 0) m_costModel->setCurrentIndex(i);
  m_population->setValue(options.population);
  m_threads->setValue(options.threads);
  m_seed->setValue(static_cast<int>(std::min<quint64>(options.seed, INT_MAX)));
  // Whole seconds, rounded up (never shorter than asked); NaN or negative: no limit.
  m_timeBudget->setValue(options.timeBudget > 0 ? static_cast<int>(std::ceil(std::min(options.timeBudget, 999999.0)))
                                                : 0);
  m_fastMath->setChecked(options.fastMath);
  m_warmStart->setChecked(options.warmStart);
  m_records->setText(options.records);
}

void TuneView::setRunning(bool running) {
  m_running = running;
  m_progress->setVisible(running);
  if (running) {
    m_progress->setRange(0, 0);
    m_progress->setToolTip(QStringLiteral("starting"));
  }
  updateButtons();
}

void TuneView::focusStart() {
  if (m_start->isEnabled())
    m_start->setFocus(Qt::ShortcutFocusReason);
  else
    m_stop->setFocus(Qt::ShortcutFocusReason);
}

void TuneView::setStopping() {
  m_stop->setEnabled(false);
  setStatus(QStringLiteral("Stopping after the candidate being measured…"));
}

void TuneView::updateButtons() {
  const bool haveTarget = !m_target->currentData().toString().isEmpty();
  m_start->setEnabled(!m_running && haveTarget);
  m_resume->setEnabled(!m_running && haveTarget && (m_model->rowCount() > 0 || !m_records->text().trimmed().isEmpty()));
  m_stop->setEnabled(m_running);
  m_apply->setEnabled(m_table->selectionModel()->hasSelection());
  for (QWidget* w : std::initializer_list<QWidget*>{m_target, m_strategy, m_trials, m_batch, m_threads, m_seed,
                                                    m_timeBudget, m_fastMath, m_records, m_browse})
    w->setEnabled(!m_running);
  // The random strategy draws fresh samples and ranks none: no model, no population, no prior.
  const bool random = m_strategy->currentData().toString() == QStringLiteral("random");
  m_costModel->setEnabled(!m_running && !random);
  m_population->setEnabled(!m_running && !random);
  m_warmStart->setEnabled(!m_running && !random);
}

void TuneView::setProgress(int done, int total, const QString& text) {
  m_progress->setRange(0, std::max(1, total));
  m_progress->setValue(std::min(done, std::max(1, total)));
  m_progress->setToolTip(text);
  setStatus(text);
}

void TuneView::setStatus(const QString& text) {
  m_status->setText(text);
  m_status->setToolTip(text);
}
QString TuneView::status() const { return m_status->text(); }

void TuneView::clear() {
  m_model->clear();
  m_best->clear();
  m_trialsSeries->clear();
  m_tirPoints->clear();
  m_polyPoints->clear();
  m_curveTrials = 0;
  m_curveTop = 0;
  m_measuredTop = 0;
  m_predictedMin = m_predictedMax = 0;
  m_havePrediction = false;
  m_priorRanked = 0;
  setRateUnit(QStringLiteral("GFLOP/s"));
  setTrialRange(m_curveX, 0);
  m_curveY->setRange(0, 1);
  m_scatterX->setRange(0, 1);
  m_scatterY->setRange(0, 1);
  m_scatterX->setTitleText(QStringLiteral("predicted score"));
  updateButtons();
}

void TuneView::addCandidate(TuneRow row) {
  if (row.ok() && row.byPrior && !m_havePrediction)
    m_scatterX->setTitleText(QStringLiteral("no model score yet (%1 by the prior)").arg(++m_priorRanked));
  if (row.ok() && row.hasPrediction) {
    if (!m_havePrediction) {
      m_predictedMin = m_predictedMax = row.predicted;
      m_havePrediction = true;
    }
    m_predictedMin = std::min(m_predictedMin, row.predicted);
    m_predictedMax = std::max(m_predictedMax, row.predicted);
    m_measuredTop = std::max(m_measuredTop, row.rate);
    (row.family == QStringLiteral("poly") ? m_polyPoints : m_tirPoints)->append(row.predicted, row.rate);
    const double span = m_predictedMax - m_predictedMin;
    const double pad = span > 0 ? span * 0.08 : std::max(0.5, std::abs(m_predictedMax) * 0.1);
    // Three ticks: the scores' scale is the model's own, and their labels can be long.
    m_scatterX->setTickCount(3);
    m_scatterX->setRange(m_predictedMin - pad, m_predictedMax + pad);
    m_scatterX->applyNiceNumbers();
    setValueRange(m_scatterY, m_measuredTop);
    // An untrained model (the first batch, or the random strategy) scores every candidate alike.
    m_scatterX->setTitleText(span > 0 ? QStringLiteral("predicted score")
                                      : QStringLiteral("predicted score (all equal)"));
  }
  m_model->addRow(std::move(row));
  updateButtons();
}

void TuneView::addTrial(double rate, double bestRate) {
  ++m_curveTrials;
  // A step: the best holds until the trial that beats it.
  if (m_best->count() > 0 && bestRate != m_best->at(m_best->count() - 1).y())
    m_best->append(m_curveTrials, m_best->at(m_best->count() - 1).y());
  m_best->append(m_curveTrials, bestRate);
  if (rate > 0) m_trialsSeries->append(m_curveTrials, rate);
  m_curveTop = std::max({m_curveTop, bestRate, rate});
  setTrialRange(m_curveX, m_curveTrials);
  setValueRange(m_curveY, m_curveTop);
}

void TuneView::setRateUnit(const QString& unit) {
  if (m_curveY->titleText() == unit) return;
  m_model->setRateUnit(unit);
  m_curveChart->setTitle(QStringLiteral("Best %1 against trials").arg(unit));
  m_curveY->setTitleText(unit);
  m_scatterY->setTitleText(unit);
  m_curveView->setToolTip(QStringLiteral("The line: the best %1 found so far; the dots: each trial's %1").arg(unit));
  m_scatterView->setToolTip(QStringLiteral("Each measured candidate: the cost model's score before it was measured "
                                           "against its %1. A model that ranks well puts them on a rising line. The "
                                           "candidates the prior ranked (the first batch) have no score of the "
                                           "model's.")
                                .arg(unit));
}

void TuneView::setDark(bool dark) {
  m_dark = dark;
  styleCharts();
}

void TuneView::styleCharts() {
  // The application's palette: applyTheme has just set it, while this widget's own
  // palette may not have received the change yet.
  const QPalette pal = QGuiApplication::palette();
  const QColor text = pal.color(QPalette::Text);
  QColor grid = text;
  grid.setAlpha(40);
  const QColor accent = m_dark ? QColor(80, 160, 255) : QColor(42, 110, 190);
  const QColor second = m_dark ? QColor(255, 170, 60) : QColor(210, 110, 20);
  QColor faint = text;
  faint.setAlpha(90);
  for (QChart* chart : {m_curveChart, m_scatterChart}) {
    chart->setTheme(m_dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundBrush(pal.color(QPalette::Base));
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    // Smaller than the themes' fonts: the charts share a short dock.
    QFont title = QGuiApplication::font();
    title.setBold(true);
    chart->setTitleFont(title);
    QFont small = QGuiApplication::font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    chart->legend()->setFont(small);
  }
  // setTheme resets the series' and axes' looks: set them after it.
  for (QValueAxis* axis : {m_curveX, m_curveY, m_scatterX, m_scatterY}) {
    axis->setLabelsColor(text);
    axis->setTitleBrush(text);
    axis->setGridLineColor(grid);
    axis->setLinePenColor(grid);
    QFont small = QGuiApplication::font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    axis->setTitleFont(small);
    axis->setLabelsFont(small);
  }
  QPen pen(accent);
  pen.setWidthF(2);
  m_best->setPen(pen);
  m_trialsSeries->setColor(faint);
  m_trialsSeries->setBorderColor(faint);
  m_tirPoints->setColor(accent);
  m_tirPoints->setBorderColor(accent.darker(130));
  m_polyPoints->setColor(second);
  m_polyPoints->setBorderColor(second.darker(130));
}

} // namespace loopscape::views
