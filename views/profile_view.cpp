#include "views/profile_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <map>

namespace loopscape::views {

ProfileView::ProfileView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("profileView"));
  m_model = new ProfileModel(this);

  m_target = new QComboBox(this);
  m_target->setObjectName(QStringLiteral("profileTarget"));
  m_target->setToolTip(QStringLiteral("The target plugin that compiles the program"));
  m_repeat = new QSpinBox(this);
  m_repeat->setObjectName(QStringLiteral("profileRepeat"));
  m_repeat->setRange(1, 100);
  m_repeat->setValue(5);
  m_repeat->setToolTip(QStringLiteral("Timed repeats (each at least 100 ms of back-to-back calls); "
                                      "the table shows their median"));
  m_verify = new QCheckBox(QStringLiteral("Verify"), this);
  m_verify->setObjectName(QStringLiteral("profileVerify"));
  m_verify->setChecked(true);
  m_verify->setToolTip(QStringLiteral("Compare every output with the reference interpreter on seeded random inputs"));
  m_sizes = new QLineEdit(this);
  m_sizes->setObjectName(QStringLiteral("profileSizes"));
  m_sizes->setPlaceholderText(QStringLiteral("sizes, e.g. n=64"));
  m_sizes->setToolTip(QStringLiteral("Values of the program's symbolic sizes (NAME=VALUE, separated by spaces)"));
  m_sizes->setMinimumWidth(110);
  m_sizes->setMaximumWidth(160);
  m_run = new QPushButton(QStringLiteral("Run"), this);
  m_run->setObjectName(QStringLiteral("profileRun"));
  m_run->setToolTip(QStringLiteral("Compile, verify and time the current state (Ctrl+R)"));
  m_cancel = new QPushButton(QStringLiteral("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("profileCancel"));
  m_cancel->setEnabled(false);
  m_original = new QPushButton(QStringLiteral("Run original"), this);
  m_original->setObjectName(QStringLiteral("profileOriginal"));
  m_original->setToolTip(QStringLiteral("Compile, verify and time the original program (step 0): the baseline, "
                                        "without undoing the steps"));
  m_clear = new QPushButton(QStringLiteral("Clear"), this);
  m_clear->setObjectName(QStringLiteral("profileClear"));
  m_clear->setToolTip(QStringLiteral("Remove every measured row of this program"));
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("profileProgress"));
  m_progress->setMaximumWidth(220);
  m_progress->setTextVisible(true);
  m_progress->hide();
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("profileStatus"));
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status->setWordWrap(true);
  m_status->setMinimumWidth(0);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Target:"), this));
  bar->addWidget(m_target);
  bar->addWidget(new QLabel(QStringLiteral("Repeats:"), this));
  bar->addWidget(m_repeat);
  bar->addWidget(m_verify);
  bar->addWidget(m_sizes);
  bar->addStretch(1);
  // The actions on a row of their own: the options and the four buttons side by side need
  // more than the dock has under a 1024-pixel window.
  auto* actions = new QHBoxLayout;
  actions->addWidget(m_run);
  actions->addWidget(m_original);
  actions->addWidget(m_cancel);
  actions->addWidget(m_clear);
  actions->addWidget(m_progress);
  actions->addStretch(1);
  // The status on a row of its own: a long status wraps instead of widening the dock.

  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("profileTable"));
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
  for (int c = 0; c < ProfileModel::ResultColumn; ++c)
    m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);
  m_table->setShowGrid(false);
  m_table->setAlternatingRowColors(true);

  m_chart = new QChart;
  m_chart->setObjectName(QStringLiteral("profileChart"));
  m_chart->legend()->hide();
  m_chart->setMargins(QMargins(2, 2, 2, 2));
  m_chart->setBackgroundRoundness(0);
  m_chartView = new QChartView(m_chart, this);
  m_chartView->setObjectName(QStringLiteral("profileChartView"));
  m_chartView->setRenderHint(QPainter::Antialiasing);
  m_chartView->setMinimumWidth(220);
  m_roofline = new RooflineChart(this);
  m_chartTabs = new QTabWidget(this);
  m_chartTabs->setObjectName(QStringLiteral("profileCharts"));
  m_chartTabs->setDocumentMode(true);
  m_chartTabs->addTab(m_chartView, QStringLiteral("Bars"));
  m_chartTabs->setTabToolTip(0, QStringLiteral("GFLOP/s of each measured state"));
  m_chartTabs->addTab(m_roofline, QStringLiteral("Roofline"));
  m_chartTabs->setTabToolTip(1, QStringLiteral("Each measured state against this machine's roof: min(peak, bandwidth "
                                               "x arithmetic intensity), log-log; hover a point for its numbers"));
  // The roofline's intensity selector in the tab bar's corner, shown with the roofline.
  m_chartTabs->setCornerWidget(m_roofline->intensitySelector(), Qt::TopRightCorner);
  m_roofline->intensitySelector()->setVisible(false);
  connect(m_chartTabs, &QTabWidget::currentChanged, this,
          [this] { m_roofline->intensitySelector()->setVisible(m_chartTabs->currentWidget() == m_roofline); });

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("profileSplitter"));
  split->addWidget(m_table);
  split->addWidget(m_chartTabs);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({560, 440});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  layout->addLayout(bar);
  layout->addLayout(actions);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);

  connect(m_run, &QPushButton::clicked, this, &ProfileView::runRequested);
  connect(m_original, &QPushButton::clicked, this, &ProfileView::originalRequested);
  connect(m_cancel, &QPushButton::clicked, this, &ProfileView::cancelRequested);
  connect(m_clear, &QPushButton::clicked, this, [this] {
    m_model->clear();
    rebuildChart();
  });
  setDark(false);
  setStatus(QStringLiteral("Run (Ctrl+R) compiles, verifies and times the current state."));
}

void ProfileView::setTargets(const std::vector<TargetEntry>& targets) {
  const QString previous = m_target->currentData().toString();
  m_targets = targets;
  const QSignalBlocker block(m_target);
  fillTargetCombo(m_target, targets);
  setCurrentTarget(previous);
  if (targets.empty()) setStatus(QStringLiteral("No target plugins found: nothing can run."));
}

void ProfileView::setCurrentTarget(const QString& name) { selectTarget(m_target, m_targets, name); }

ProfileOptions ProfileView::options() const {
  return {m_target->currentData().toString(), m_repeat->value(), m_verify->isChecked(), m_sizes->text().trimmed()};
}

void ProfileView::setOptions(const ProfileOptions& options) {
  setCurrentTarget(options.target);
  m_repeat->setValue(options.repeat);
  m_verify->setChecked(options.verify);
  m_sizes->setText(options.sizes);
}

void ProfileView::setRunning(bool running) {
  m_running = running;
  m_run->setEnabled(!running);
  m_original->setEnabled(!running);
  m_cancel->setEnabled(running);
  m_progress->setVisible(running);
  if (running) {
    m_progress->setRange(0, 0);
    m_progress->setFormat(QStringLiteral("starting"));
  }
}

void ProfileView::setProgress(const QString& stage, int done, int total) {
  m_progress->setRange(0, total);
  m_progress->setValue(done);
  m_progress->setFormat(stage);
  m_progress->setToolTip(stage);
}

void ProfileView::setStatus(const QString& text) { m_status->setText(text); }
QString ProfileView::status() const { return m_status->text(); }

void ProfileView::addRow(ProfileRow row) {
  if (row.program.empty()) row.program = m_programName.toStdString();
  m_model->addRow(std::move(row));
  m_table->scrollToBottom();
  rebuildChart();
}

void ProfileView::setProgram(const QString& key, const QString& name) {
  if (key == m_programKey) {
    m_programName = name;
    return;
  }
  if (!m_programKey.isEmpty()) m_otherPrograms[m_programKey] = m_model->rows();
  m_programKey = key;
  m_programName = name;
  std::vector<ProfileRow> rows;
  if (auto it = m_otherPrograms.find(key); it != m_otherPrograms.end()) {
    rows = std::move(it->second);
    m_otherPrograms.erase(it);
  }
  m_model->clear();
  for (ProfileRow& row : rows)
    m_model->addRow(std::move(row));
  rebuildChart();
  setStatus(m_model->rowCount() == 0
                ? QStringLiteral("No runs of %1 yet: Run (Ctrl+R) compiles, verifies and times the current state, "
                                 "Run original the program before any step.")
                      .arg(name)
                : QStringLiteral("%1 earlier run(s) of %2.").arg(m_model->rowCount()).arg(name));
}

void ProfileView::restoreRows(std::vector<ProfileRow> rows) {
  m_model->clear();
  for (ProfileRow& row : rows)
    m_model->addRow(std::move(row));
  rebuildChart();
  if (m_model->rowCount() > 0)
    setStatus(QStringLiteral("%1 run(s) of %2, saved with the session.").arg(m_model->rowCount()).arg(m_programName));
}

void ProfileView::setDark(bool dark) {
  m_dark = dark;
  m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  // The application's palette: applyTheme has just set it, while this widget's own
  // palette may not have received the change yet.
  const QPalette pal = QGuiApplication::palette();
  m_chart->setBackgroundBrush(pal.color(QPalette::Base));
  m_chart->setTitleBrush(pal.color(QPalette::Text));
  m_roofline->setDark(dark);
  rebuildChart();
}

void ProfileView::showRoofline(bool roofline) {
  m_chartTabs->setCurrentWidget(roofline ? static_cast<QWidget*>(m_roofline) : m_chartView);
}

void ProfileView::rebuildChart() {
  m_roofline->setRows(m_model->rows(), m_programName);
  m_chart->removeAllSeries();
  for (QAbstractAxis* axis : m_chart->axes()) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  // Horizontal bars leave room for the labels; the first row is the top bar.
  auto* set = new QBarSet(QStringLiteral("GFLOP/s"));
  QStringList categories;
  double top = 0;
  // Category names must be unique: a state measured again is "label (2)", "label (3)".
  std::vector<QString> names;
  std::map<QString, int> seen;
  for (const ProfileRow& row : m_model->rows()) {
    if (!row.timed()) continue;
    const QString label = QString::fromStdString(row.label());
    const int n = ++seen[label];
    names.push_back(n == 1 ? label : QStringLiteral("%1 (%2)").arg(label).arg(n));
  }
  const auto& rows = m_model->rows();
  auto name = names.rbegin();
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    if (!it->timed()) continue;
    *set << it->gflops;
    categories << *name++;
    top = std::max(top, it->gflops);
  }
  const QString whose = m_programName.isEmpty() ? QString() : QStringLiteral(" of %1").arg(m_programName);
  m_chart->setTitle(categories.isEmpty() ? QStringLiteral("GFLOP/s%1 (no runs yet)").arg(whose)
                                         : QStringLiteral("GFLOP/s%1").arg(whose));
  if (categories.isEmpty()) {
    delete set;
    return;
  }
  set->setColor(m_dark ? QColor(80, 160, 255) : QColor(42, 110, 190));
  set->setBorderColor(set->color());
  set->setLabelColor(QGuiApplication::palette().color(QPalette::Text));
  auto* series = new QHorizontalBarSeries;
  series->append(set);
  series->setLabelsVisible(true);
  series->setLabelsFormat(QStringLiteral("@value"));
  series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
  series->setLabelsPrecision(3);
  m_chart->addSeries(series);
  auto* labels = new QBarCategoryAxis;
  labels->append(categories);
  auto* values = new QValueAxis;
  values->setRange(0, top > 0 ? top * 1.2 : 1);
  values->setTickCount(5);
  values->applyNiceNumbers();
  values->setLabelFormat(QStringLiteral("%.3g"));
  values->setTitleText(QStringLiteral("GFLOP/s"));
  m_chart->addAxis(labels, Qt::AlignLeft);
  m_chart->addAxis(values, Qt::AlignBottom);
  series->attachAxis(labels);
  series->attachAxis(values);
}

} // namespace loopscape::views
