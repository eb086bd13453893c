// ModelGroupsModel: the fused groups of a Relay model in the Model view (model_view.h),
// one row per group: its name, pattern, member ops, the schedule the model schedule gives
// it, and after a run of the compiled model its median time, share of the summed group
// times, GFLOP/s and (when the run was verified) its check against the reference. Rows are plain ModelGroupRow values
// built by the window from the session's model and model schedule; the model only replaces them.
#pragma once

#include <QAbstractTableModel>

#include <optional>
#include <string>
#include <vector>

namespace loopscape::views {

struct ModelGroupRow {
  std::string name;    ///< tvmgen_default_fused_...
  std::string pattern; ///< "out_elemwise_fusable"
  std::string ops;     ///< "nn.conv2d add nn.relu"
  std::string source;  ///< GroupChoice::describe(): "default", "poly(fusion=smart)", "trace (inline)"
  std::int64_t flops = 0;
  std::optional<double> ms; ///< measured median (absent before a run)
  double share = 0;         ///< of the summed group times, 0..1 (0 before a run)
  bool edited = false;      ///< the group has steps of its own in the workbench
  /// After a verified run: "ok", "ok (vs unscheduled)" or "MISMATCH: <max errors>";
  /// empty when the run was not verified.
  std::string verified;
};

class ModelGroupsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  /// The measured columns come first after the name: they are what a narrow dock must show.
  enum Column {
    NameColumn,
    MsColumn,
    ShareColumn,
    GflopsColumn,
    VerifiedColumn,
    SourceColumn,
    PatternColumn,
    ColumnCount
  };
  explicit ModelGroupsModel(QObject* parent = nullptr);

  void setRows(std::vector<ModelGroupRow> rows);
  const std::vector<ModelGroupRow>& rows() const { return m_rows; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::vector<ModelGroupRow> m_rows;
};

} // namespace loopscape::views
