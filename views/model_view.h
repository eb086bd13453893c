// ModelView: a Relay model in the workbench (the Model dock). On top, the model's graph
// laid out by Graphviz (ModelPicture: one cluster per fused group, op names and output
// shapes on nodes, tensor shapes on edges, constants folded away; after a run, groups
// filled by their share of the measured time); below, the groups table (ModelGroupsModel:
// name, ms, share, GFLOP/s, schedule source, pattern) and a bar chart of the per-group
// times. A toolbar carries the window's model actions (profile, poly_auto for every group,
// default schedules) and the profile run's options (verify, threads); a status line says
// what was measured and how the check went. Clicking a group in the
// picture or the table emits groupActivated; the view never changes the session itself.
#pragma once

#include "views/dot_picture.h"
#include "views/model_groups_model.h"

#include <QWidget>

#include <memory>

class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QSpinBox;
class QTableView;
class QTabWidget;
class QToolBar;

namespace loopscape::graph {
struct Model;
}

namespace loopscape::views {

class ModelPicture : public DotPicture {
  Q_OBJECT
public:
  explicit ModelPicture(QWidget* parent = nullptr);
  /// Shows `model` (null: `message`) with each group filled by its share (empty: no run).
  void setModel(std::shared_ptr<const graph::Model> model, std::vector<double> shares, const QString& message = {});

protected:
  bool hasContent() const override { return m_model != nullptr; }
  std::function<std::string()> dotSource(bool dark) const override;
  void collectElements(const ShapeLocator& locate, std::vector<Element>& out) const override;

private:
  std::shared_ptr<const graph::Model> m_model;
  std::vector<double> m_shares;
};

class ModelView : public QWidget {
  Q_OBJECT
public:
  explicit ModelView(QWidget* parent = nullptr);

  ModelPicture* picture() const { return m_picture; }
  QTableView* table() const { return m_table; }
  ModelGroupsModel* groups() const { return m_groups; }
  QChart* chart() const { return m_chart; }
  QTabWidget* tabs() const { return m_tabs; }
  /// Where the window puts its model actions.
  QToolBar* toolBar() const { return m_toolBar; }
  /// Options of a profile run, for the window to place in the toolbar: verify every
  /// group against its reference (on by default), and the threads of parallel loops
  /// (0: all cores).
  QCheckBox* verifyBox() const { return m_verify; }
  QSpinBox* threadsBox() const { return m_threads; }
  bool verify() const;
  int threads() const;

  /// A newly loaded model (null: none, `message` says why); its rows come with setRows.
  void setModel(std::shared_ptr<const graph::Model> model, const QString& message = {});
  std::shared_ptr<const graph::Model> model() const { return m_model; }
  /// The groups' rows (same order as the model's groups); with times, the picture is
  /// coloured by share and the chart shows them.
  void setRows(std::vector<ModelGroupRow> rows);
  /// The group open in the workbench (-1: none): selected in the table, outlined in the
  /// picture; emits nothing.
  void setCurrentGroup(int index);
  int currentGroup() const { return m_current; }
  void setStatus(const QString& text);
  QString status() const;
  void setDark(bool dark);

Q_SIGNALS:
  /// The user picked group `index` (a click in the picture or the table).
  void groupActivated(int index);

private:
  void updateChart();
  std::vector<double> shares() const;

  std::shared_ptr<const graph::Model> m_model;
  ModelPicture* m_picture;
  ModelGroupsModel* m_groups;
  QTableView* m_table;
  QChart* m_chart;
  QChartView* m_chartView;
  QTabWidget* m_tabs;
  QToolBar* m_toolBar;
  QCheckBox* m_verify;
  QSpinBox* m_threads;
  QLabel* m_status;
  int m_current = -1;
  bool m_timed = false; ///< the rows carry times (the picture is coloured)
};

} // namespace loopscape::views
