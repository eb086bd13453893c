#include "views/model_view.h"

#include "core/graph/model.h"
#include "views/model_dot.h"
#include "views/qt_text.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace loopscape::views {

// ---- the picture -------------------------------------------------------------------------

ModelPicture::ModelPicture(QWidget* parent) : DotPicture(parent) { setObjectName(QStringLiteral("modelPicture")); }

void ModelPicture::setModel(std::shared_ptr<const graph::Model> model, std::vector<double> shares,
                            const QString& message) {
  m_model = std::move(model);
  m_shares = std::move(shares);
  requestRender(message);
}

std::function<std::string()> ModelPicture::dotSource(bool dark) const {
  return [model = m_model, shares = m_shares, dark] {
    return modelGraphDot(*model, shares, dark ? darkDotPalette() : lightDotPalette(), dark);
  };
}

void ModelPicture::collectElements(const ShapeLocator& locate, std::vector<Element>& out) const {
  if (!m_model) return;
  // The clusters first: elementRect(group id) is the cluster's outline.
  for (const graph::ModelGroup& g : m_model->groups) {
    const QString id = qs(groupElementId(g.index));
    const QRectF rect = locate(id);
    if (rect.isNull()) continue;
    QString tip = QStringLiteral("group %1: %2\npattern: %3\nops: %4\noutput: %5")
                      .arg(g.index)
                      .arg(qs(g.name), qs(g.pattern), qs(g.ops), qs(g.outputType));
    if (g.index < m_shares.size())
      tip += QStringLiteral("\n%1% of the measured time").arg(m_shares[g.index] * 100, 0, 'f', 1);
    out.push_back({id, rect, tip + QStringLiteral("\n\nclick to open it in the workbench"), false});
  }
  // The nodes inside a cluster answer for their group (smaller, so they win a click):
  // their ids are "<group id>/n<k>" with k counting every drawn node of the graph.
  const std::size_t clusters = out.size();
  const int drawn = int(frontend::relay::postOrder(m_model->main().body).size());
  for (std::size_t c = 0; c < clusters; ++c) {
    const Element cluster = out[c];
    for (int n = 0; n < drawn; ++n) {
      const QRectF rect = locate(QStringLiteral("%1/n%2").arg(cluster.id).arg(n));
      if (!rect.isNull()) out.push_back({cluster.id, rect, cluster.tooltip, false});
    }
  }
}

// ---- the view ----------------------------------------------------------------------------

ModelView::ModelView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("modelView"));
  m_toolBar = new QToolBar(this);
  m_toolBar->setObjectName(QStringLiteral("modelToolBar"));
  m_toolBar->setIconSize(QSize(16, 16));
  m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  m_verify = new QCheckBox(QStringLiteral("Verify"), this);
  m_verify->setObjectName(QStringLiteral("modelVerify"));
  m_verify->setChecked(true);
  m_verify->setToolTip(QStringLiteral("Check every group's output against the reference interpreter (or, for big "
                                      "groups, against the group compiled unscheduled), as relay run --verify"));
  m_threads = new QSpinBox(this);
  m_threads->setObjectName(QStringLiteral("modelThreads"));
  m_threads->setRange(0, 4096);
  m_threads->setPrefix(QStringLiteral("threads "));
  m_threads->setSpecialValueText(QStringLiteral("all cores"));
  m_threads->setToolTip(QStringLiteral("Threads of the parallel loops (relay run --threads)"));
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("modelStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_picture = new ModelPicture(this);
  m_groups = new ModelGroupsModel(this);
  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("modelGroupsTable"));
  m_table->setModel(m_groups);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(ModelGroupsModel::NameColumn, QHeaderView::Interactive);
  m_table->horizontalHeader()->resizeSection(ModelGroupsModel::NameColumn, 190);
  m_table->setWordWrap(false);
  m_table->setShowGrid(false);
  m_table->setAlternatingRowColors(true);
  m_table->setTextElideMode(Qt::ElideMiddle);

  m_chart = new QChart;
  m_chart->setObjectName(QStringLiteral("modelChart"));
  m_chart->legend()->hide();
  m_chart->setMargins(QMargins(2, 2, 2, 2));
  m_chart->setBackgroundRoundness(0);
  m_chartView = new QChartView(m_chart, this);
  m_chartView->setObjectName(QStringLiteral("modelChartView"));
  m_chartView->setRenderHint(QPainter::Antialiasing);

  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("modelTabs"));
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(m_table, QStringLiteral("Groups"));
  m_tabs->setTabToolTip(0, QStringLiteral("The fused groups; click one to schedule it in the workbench"));
  m_tabs->addTab(m_chartView, QStringLiteral("Time"));
  m_tabs->setTabToolTip(1, QStringLiteral("Milliseconds of each group in the last run of the model"));

  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("modelSplitter"));
  split->addWidget(m_picture);
  split->addWidget(m_tabs);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);
  m_tabs->setMinimumHeight(120);
  split->setSizes({600, 400}); // scaled to the dock's height when shown

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  layout->addWidget(m_toolBar);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);

  connect(m_picture, &DotPicture::elementClicked, this, [this](const QString& id) {
    const int group = groupIndexOfElementId(id.toStdString());
    if (group >= 0) Q_EMIT groupActivated(group);
  });
  connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
    if (index.isValid()) Q_EMIT groupActivated(index.row());
  });
  connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
    if (index.isValid()) Q_EMIT groupActivated(index.row());
  });
  setModel(nullptr);
}

void ModelView::setModel(std::shared_ptr<const graph::Model> model, const QString& message) {
  m_model = std::move(model);
  m_current = -1;
  m_timed = false;
  m_groups->setRows({});
  m_picture->setModel(
      m_model, {}, message.isEmpty() ? QStringLiteral("Open a Relay model (.relay) to see its graph here.") : message);
  updateChart();
  setStatus(m_model ? QStringLiteral("%1 fused groups: click one to schedule it.").arg(m_model->groups.size())
                    : QString());
}

std::vector<double> ModelView::shares() const {
  std::vector<double> out;
  if (!m_timed) return out;
  for (const ModelGroupRow& r : m_groups->rows())
    out.push_back(r.share);
  return out;
}

void ModelView::setRows(std::vector<ModelGroupRow> rows) {
  const bool timed = std::any_of(rows.begin(), rows.end(), [](const ModelGroupRow& r) { return r.ms.has_value(); });
  const bool recolour = timed || m_timed;
  std::vector<double> before = shares();
  m_groups->setRows(std::move(rows));
  m_timed = timed;
  if (recolour && shares() != before) m_picture->setModel(m_model, shares());
  updateChart();
  setCurrentGroup(m_current);
}

void ModelView::setCurrentGroup(int index) {
  m_current = index;
  m_picture->setSelectedId(index >= 0 ? qs(groupElementId(std::size_t(index))) : QString());
  if (index >= 0 && index < m_groups->rowCount()) {
    QSignalBlocker block(m_table);
    m_table->selectRow(index);
    m_table->scrollTo(m_groups->index(index, 0));
  } else {
    m_table->clearSelection();
  }
}

bool ModelView::verify() const { return m_verify->isChecked(); }
int ModelView::threads() const { return m_threads->value(); }

void ModelView::setStatus(const QString& text) { m_status->setText(text); }

QString ModelView::status() const { return m_status->text(); }

void ModelView::setDark(bool dark) {
  m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  const QPalette pal = QGuiApplication::palette();
  m_chart->setBackgroundBrush(pal.color(QPalette::Base));
  m_chart->setTitleBrush(pal.color(QPalette::Text));
  updateChart();
}

void ModelView::updateChart() {
  m_chart->removeAllSeries();
  for (QAbstractAxis* axis : m_chart->axes()) {
    m_chart->removeAxis(axis);
    delete axis;
  }
  if (!m_timed) {
    m_chart->setTitle(QStringLiteral("ms per group (Run \u2192 Profile model)"));
    return;
  }
  m_chart->setTitle(QStringLiteral("ms per group (median)"));
  auto* set = new QBarSet(QStringLiteral("ms"));
  QStringList categories;
  double top = 0;
  const auto& rows = m_groups->rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double ms = rows[i].ms.value_or(0);
    *set << ms;
    categories << QString::number(i);
    top = std::max(top, ms);
  }
  const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
  set->setColor(dark ? QColor(255, 140, 90) : QColor(220, 90, 60));
  set->setBorderColor(set->color());
  auto* series = new QBarSeries;
  series->append(set);
  series->setBarWidth(0.8);
  m_chart->addSeries(series);
  auto* labels = new QBarCategoryAxis;
  labels->append(categories);
  labels->setTitleText(QStringLiteral("group"));
  auto* values = new QValueAxis;
  values->setRange(0, top > 0 ? top * 1.1 : 1);
  values->setTickCount(5);
  values->applyNiceNumbers();
  values->setLabelFormat(QStringLiteral("%.3g"));
  values->setTitleText(QStringLiteral("ms"));
  m_chart->addAxis(labels, Qt::AlignBottom);
  m_chart->addAxis(values, Qt::AlignLeft);
  series->attachAxis(labels);
  series->attachAxis(values);
}

} // namespace loopscape::views
