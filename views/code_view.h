// CodeView: the generated code of the current program for one target plugin and one of
// its formats (C, LLVM IR, assembly, ...). The view lists the plugins found (disabled ones
// greyed out with the reason as tooltip), shows the text it is given and a status line
// ("compiling…", the toolchain, or the error). Generating the code is the session's job
// (in the background); the view only reports which target and format the user picked.
#pragma once

#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;

namespace loopscape::views {

struct TargetEntry {
  QString name;
  QString description;
  QStringList formats;
  bool enabled = true;
  QString reason; ///< why a disabled plugin cannot be used
};

/// Fills `combo` with `targets`: item data the name, disabled plugins greyed out with the
/// reason as tooltip (the code, profile and tune views' target choosers).
void fillTargetCombo(QComboBox* combo, const std::vector<TargetEntry>& targets);
/// Selects `name` in a combo fillTargetCombo filled from `targets` if it is listed and
/// enabled; otherwise the first enabled target (nothing when none is).
void selectTarget(QComboBox* combo, const std::vector<TargetEntry>& targets, const QString& name);

class CodeView : public QWidget {
  Q_OBJECT
public:
  explicit CodeView(QWidget* parent = nullptr);

  void setTargets(const std::vector<TargetEntry>& targets);
  /// Selects `name` if it is listed and enabled; otherwise the first enabled target.
  void setCurrentTarget(const QString& name);
  QString currentTarget() const;
  QString currentFormat() const;
  void setCode(const QString& text, const QString& status);
  void setError(const QString& report, const QString& status);
  void setStatus(const QString& status);
  QString code() const;
  QString status() const;

Q_SIGNALS:
  /// The user picked another target or format.
  void selectionChanged(const QString& target, const QString& format);

private:
  void fillFormats();
  std::vector<TargetEntry> m_targets;
  QComboBox* m_target;
  QComboBox* m_format;
  QLabel* m_status;
  QPlainTextEdit* m_text;
};

} // namespace loopscape::views
