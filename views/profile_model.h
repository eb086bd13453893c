// ProfileModel: the measured states of the session, one row per profile run (the trace
// step, the target, the median time, GFLOP/s, percent of the machine's peak, and whether
// the result was verified, or the error, or that the run was cancelled). Rows are plain
// ProfileRow values produced by the profile job (app/gui/profile_jobs.h); the model only
// appends and clears them. A saved session keeps its program's rows (profile_rows_json.h).
#pragma once

#include <QAbstractTableModel>

#include <optional>
#include <string>
#include <vector>

namespace loopscape::views {

struct ProfileRow {
  enum class Status {
    Verified,    ///< every output matched the reference
    NotVerified, ///< timed without verification (the option was off)
    Mismatch,    ///< timed, but an output differs from the reference
    Error,       ///< could not be compiled, run or verified (message says why)
    Cancelled,   ///< the user stopped the run (message says at which stage)
  };
  std::string program;   ///< the program measured ("stencil1d.te")
  int step = 0;          ///< trace step of the measured state (0: the original program)
  std::string stepLabel; ///< "original", "3 · split"
  std::string target;    ///< plugin name, "cpu-c"
  Status status = Status::Error;
  std::string message;             ///< the result column: "verified", the error's message, ...
  std::string details;             ///< tooltip: the rendered diagnostic or the output checks
  std::vector<double> perRepeatMs; ///< milliseconds per call of each repeat (empty: not timed)
  int number = 0;                  ///< calls per repeat
  double medianMs = 0;
  double gflops = 0;
  std::optional<double> percentOfPeak; ///< absent without a machine peak
  /// The roofline's inputs (absent in rows saved before they were recorded, or when the
  /// work or the peak is unknown): FLOP per compulsory byte of the program, the FMA peak
  /// for the cores the state uses (GFLOP/s) and the machine's streaming bandwidth (GB/s).
  std::optional<double> intensity;
  std::optional<double> peakGflops;
  std::optional<double> bandwidthGBs;
  /// The modeled traffic of the measured schedule (core/codegen/traffic_model.h), absent
  /// in rows saved before it was recorded: its bytes between the cache and memory, FLOP
  /// per modeled byte, and the model in words ("beyond a 1 MiB cache, 64-byte lines").
  std::optional<double> modeledBytes;
  std::optional<double> modeledIntensity;
  std::string trafficModel;
  /// "step 3 · split / cpu-c": the row's label in the chart.
  std::string label() const;
  bool timed() const { return !perRepeatMs.empty(); }
};

/// "verified", "not verified", "mismatch", "error", "cancelled".
const char* statusName(ProfileRow::Status status);

class ProfileModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { StepColumn, TargetColumn, MedianColumn, GflopsColumn, PeakColumn, ResultColumn, ColumnCount };
  /// Qt::UserRole on any column: the row's Status as int.
  static constexpr int StatusRole = Qt::UserRole;
  explicit ProfileModel(QObject* parent = nullptr);

  void addRow(ProfileRow row);
  void clear();
  const std::vector<ProfileRow>& rows() const { return m_rows; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::vector<ProfileRow> m_rows;
};

} // namespace loopscape::views
