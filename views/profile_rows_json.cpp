#include "views/profile_rows_json.h"

#include <QJsonObject>

#include <optional>

namespace loopscape::views {

namespace {

constexpr ProfileRow::Status kStatuses[] = {ProfileRow::Status::Verified, ProfileRow::Status::NotVerified,
                                            ProfileRow::Status::Mismatch, ProfileRow::Status::Error,
                                            ProfileRow::Status::Cancelled};

std::optional<ProfileRow::Status> statusOf(const QString& name) {
  for (ProfileRow::Status s : kStatuses)
    if (name == QLatin1String(statusName(s))) return s;
  return std::nullopt;
}

std::optional<ProfileRow> rowFromJson(const QJsonValue& value) {
  if (!value.isObject()) return std::nullopt;
  const QJsonObject o = value.toObject();
  const auto text = [&](const char* key, std::string& out) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isString()) return false;
    out = v.toString().toStdString();
    return true;
  };
  const auto number = [&](const char* key, double& out) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isDouble()) return false;
    out = v.toDouble();
    return true;
  };
  ProfileRow row;
  double step = 0, number_ = 0;
  if (!text("program", row.program) || !text("stepLabel", row.stepLabel) || !text("target", row.target) ||
      !text("message", row.message) || !text("details", row.details) || !number("step", step) ||
      !number("number", number_) || !number("medianMs", row.medianMs) || !number("gflops", row.gflops))
    return std::nullopt;
  const auto status = statusOf(o.value(QLatin1String("status")).toString());
  if (!status) return std::nullopt;
  row.status = *status;
  row.step = int(step);
  row.number = int(number_);
  const QJsonValue repeats = o.value(QLatin1String("perRepeatMs"));
  if (!repeats.isArray()) return std::nullopt;
  for (const QJsonValue& ms : repeats.toArray()) {
    if (!ms.isDouble()) return std::nullopt;
    row.perRepeatMs.push_back(ms.toDouble());
  }
  // Optional numbers: a missing one (a session saved before it was recorded) is absent.
  const auto optional = [&](const char* key, std::optional<double>& out) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isDouble()) out = v.toDouble();
    return v.isDouble() || v.isUndefined() || v.isNull();
  };
  if (!optional("percentOfPeak", row.percentOfPeak) || !optional("intensity", row.intensity) ||
      !optional("peakGflops", row.peakGflops) || !optional("bandwidthGBs", row.bandwidthGBs) ||
      !optional("modeledBytes", row.modeledBytes) || !optional("modeledIntensity", row.modeledIntensity))
    return std::nullopt;
  if (const QJsonValue model = o.value(QLatin1String("trafficModel")); model.isString())
    row.trafficModel = model.toString().toStdString();
  return row;
}

} // namespace

QJsonArray profileRowsToJson(const std::vector<ProfileRow>& rows) {
  QJsonArray out;
  for (const ProfileRow& row : rows) {
    QJsonObject o;
    o[QLatin1String("program")] = QString::fromStdString(row.program);
    o[QLatin1String("step")] = row.step;
    o[QLatin1String("stepLabel")] = QString::fromStdString(row.stepLabel);
    o[QLatin1String("target")] = QString::fromStdString(row.target);
    o[QLatin1String("status")] = QLatin1String(statusName(row.status));
    o[QLatin1String("message")] = QString::fromStdString(row.message);
    o[QLatin1String("details")] = QString::fromStdString(row.details);
    QJsonArray repeats;
    for (double ms : row.perRepeatMs)
      repeats.append(ms);
    o[QLatin1String("perRepeatMs")] = repeats;
    o[QLatin1String("number")] = row.number;
    o[QLatin1String("medianMs")] = row.medianMs;
    o[QLatin1String("gflops")] = row.gflops;
    if (row.percentOfPeak) o[QLatin1String("percentOfPeak")] = *row.percentOfPeak;
    if (row.intensity) o[QLatin1String("intensity")] = *row.intensity;
    if (row.peakGflops) o[QLatin1String("peakGflops")] = *row.peakGflops;
    if (row.bandwidthGBs) o[QLatin1String("bandwidthGBs")] = *row.bandwidthGBs;
    if (row.modeledBytes) o[QLatin1String("modeledBytes")] = *row.modeledBytes;
    if (row.modeledIntensity) o[QLatin1String("modeledIntensity")] = *row.modeledIntensity;
    if (!row.trafficModel.empty()) o[QLatin1String("trafficModel")] = QString::fromStdString(row.trafficModel);
    out.append(o);
  }
  return out;
}

std::vector<ProfileRow> profileRowsFromJson(const QJsonArray& array, int* skipped) {
  std::vector<ProfileRow> rows;
  int bad = 0;
  for (const QJsonValue& v : array) {
    if (auto row = rowFromJson(v))
      rows.push_back(std::move(*row));
    else
      ++bad;
  }
  if (skipped) *skipped = bad;
  return rows;
}

} // namespace loopscape::views
