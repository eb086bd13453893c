// The XGBoost cost model (xgb_model.h states the objective, the data kept and the files),
// the rank correlation, and makeCostModel (cost_model.h), the factory of both models.
#include "core/tune/xgb_model.h"

#include "core/ir/printer.h"
#include "core/tune/prior_model.h"
#include "core/tune/random_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

namespace loopscape::tune {

namespace {

constexpr char kDataMagic[] = "LSXGBD01";

Diagnostic xgbError(const std::string& what) {
  const char* last = XGBGetLastError();
  return Diagnostic::error("tune.xgboost",
                           "XGBoost failed to " + what + ": " + quoteForMessage(last ? last : "(no message)", 400));
}

struct DMatrixFree {
  void operator()(void* h) const { XGDMatrixFree(h); }
};
struct BoosterFree {
  void operator()(void* h) const { XGBoosterFree(h); }
};
using DMatrixPtr = std::unique_ptr<void, DMatrixFree>;
using BoosterPtr = std::unique_ptr<void, BoosterFree>;

Expected<DMatrixPtr> makeDMatrix(const std::vector<float>& rows) {
  DMatrixHandle h = nullptr;
  const auto n = static_cast<bst_ulong>(rows.size() / kFeatureCount);
  if (XGDMatrixCreateFromMat(rows.data(), n, kFeatureCount, std::nanf(""), &h) != 0)
    return Unexpected(xgbError("create a feature matrix"));
  return DMatrixPtr(h);
}

Expected<void> setParams(BoosterHandle b, const XgbOptions& o) {
  const std::pair<const char*, std::string> params[] = {
      {"booster", "gbtree"},
      {"tree_method", "hist"},
      {"objective", "reg:squarederror"}, // nominal: the gradients are ours (pack-sum)
      {"base_score", "0"},
      {"max_depth", std::to_string(o.maxDepth)},
      {"eta", std::to_string(o.eta)},
      {"gamma", std::to_string(o.gamma)},
      {"min_child_weight", std::to_string(o.minChildWeight)},
      {"nthread", std::to_string(std::max(1, o.threads))},
      {"seed", std::to_string(o.seed)},
      {"verbosity", "0"},
      {"disable_default_eval_metric", "1"},
  };
  for (const auto& [name, value] : params)
    if (XGBoosterSetParam(b, name, value.c_str()) != 0) return Unexpected(xgbError("set a booster parameter"));
  return {};
}

/// Margin predictions (one per row) of `b` on `m`.
Expected<std::vector<float>> rowPredictions(BoosterHandle b, DMatrixHandle m, std::size_t rows, bool training) {
  bst_ulong len = 0;
  const float* out = nullptr;
  if (XGBoosterPredict(b, m, /*option_mask=output margin*/ 1, 0, training ? 1 : 0, &len, &out) != 0)
    return Unexpected(xgbError("predict"));
  if (len != rows)
    return Unexpected(Diagnostic::error("tune.xgboost", "XGBoost returned " + std::to_string(len) +
                                                            " predictions for " + std::to_string(rows) + " rows"));
  return std::vector<float>(out, out + len);
}

/// The program's feature rows with exact duplicates kept once (header: "Rows").
std::vector<std::vector<float>> programRows(const codegen::LoweredFunc& func, const FeatureOptions& options) {
  std::vector<std::vector<float>> rows = extractFeatures(func, options);
  std::set<std::vector<float>> seen;
  std::erase_if(rows, [&](const std::vector<float>& row) { return !seen.insert(row).second; });
  return rows;
}

std::string workloadSignature(const codegen::LoweredFunc& func) {
  std::string s = func.name;
  for (const auto& p : func.flatParams) {
    s += "|" + p->name + ":" + p->dtype.str();
    for (const auto& dim : p->shape)
      s += ":" + ir::printExpr(dim);
  }
  return s;
}

Diagnostic ioError(const char* verb, const std::filesystem::path& path) {
  return Diagnostic::error("tune.model-io", std::string("cannot ") + verb + " the cost model file '" +
                                                quoteForMessage(path.string()) + "'");
}

Expected<std::string> readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected(ioError("read", path));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return Unexpected(ioError("read", path));
  return text.str();
}

Expected<void> writeFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Unexpected(ioError("write", path));
  return {};
}

// The ".data" file: fixed-width little-endian fields (the hosts we build for).
static_assert(std::endian::native == std::endian::little, "the .data format is little-endian");

template <typename T> void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

class Reader {
public:
  explicit Reader(std::string_view data) : m_data(data) {}
  template <typename T> bool get(T& value) {
    if (m_data.size() - m_pos < sizeof(T)) return false;
    std::memcpy(&value, m_data.data() + m_pos, sizeof(T));
    m_pos += sizeof(T);
    return true;
  }
  bool bytes(std::size_t n, std::string& out) {
    if (m_data.size() - m_pos < n) return false;
    out.assign(m_data.substr(m_pos, n));
    m_pos += n;
    return true;
  }
  bool floats(std::size_t n, std::vector<float>& out) {
    if ((m_data.size() - m_pos) / sizeof(float) < n) return false;
    out.resize(n);
    std::memcpy(out.data(), m_data.data() + m_pos, n * sizeof(float));
    m_pos += n * sizeof(float);
    return true;
  }
  bool atEnd() const { return m_pos == m_data.size(); }

private:
  std::string_view m_data;
  std::size_t m_pos = 0;
};

std::filesystem::path dataPath(const std::filesystem::path& path) {
  return std::filesystem::path(path.string() + ".data");
}

} // namespace

XgbModel::XgbModel(XgbOptions options) : m_options(std::move(options)) {}

XgbModel::~XgbModel() { setBooster(nullptr); }

void XgbModel::setBooster(void* booster) {
  if (m_booster) XGBoosterFree(m_booster);
  m_booster = booster;
}

std::uint32_t XgbModel::workloadId(const codegen::LoweredFunc& func) {
  std::string sig = workloadSignature(func);
  auto it = std::find(m_workloads.begin(), m_workloads.end(), sig);
  if (it != m_workloads.end()) return static_cast<std::uint32_t>(it - m_workloads.begin());
  m_workloads.push_back(std::move(sig));
  return static_cast<std::uint32_t>(m_workloads.size() - 1);
}

std::vector<double> XgbModel::predict(std::span<const codegen::LoweredFunc* const> candidates) {
  auto s = scores(candidates);
  if (!s) {
    m_lastError = s.error();
    return std::vector<double>(candidates.size(), 0.0);
  }
  m_lastError.reset();
  return *s;
}

Expected<std::vector<double>> XgbModel::scores(std::span<const codegen::LoweredFunc* const> candidates) const {
  std::vector<double> result(candidates.size(), 0.0);
  if (!m_booster) return result;
  std::vector<float> rows;
  std::vector<std::size_t> owner; // candidate of each row
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    for (auto& row : programRows(*candidates[i], m_options.features)) {
      rows.insert(rows.end(), row.begin(), row.end());
      owner.push_back(i);
    }
  }
  if (owner.empty()) return result;
  auto matrix = makeDMatrix(rows);
  if (!matrix) return Unexpected(matrix.error());
  auto preds = rowPredictions(m_booster, matrix->get(), owner.size(), false);
  if (!preds) return Unexpected(preds.error());
  for (std::size_t r = 0; r < owner.size(); ++r)
    result[owner[r]] += (*preds)[r];
  return result;
}

void XgbModel::update(std::span<const codegen::LoweredFunc* const> candidates, std::span<const double> gflops) {
  LS_ASSERT(candidates.size() == gflops.size(), "one gflops value per candidate");
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Program p;
    for (auto& row : programRows(*candidates[i], m_options.features))
      p.rows.insert(p.rows.end(), row.begin(), row.end());
    if (p.rows.empty()) continue;
    p.workload = workloadId(*candidates[i]);
    p.gflops = std::isfinite(gflops[i]) && gflops[i] > 0 ? gflops[i] : 0.0;
    // A program the model holds already (same workload, same rows): its latest measure.
    auto same = std::find_if(m_programs.begin(), m_programs.end(),
                             [&](const Program& q) { return q.workload == p.workload && q.rows == p.rows; });
    if (same != m_programs.end())
      same->gflops = p.gflops;
    else
      m_programs.push_back(std::move(p));
  }
  if (m_programs.size() > m_options.maxPrograms)
    m_programs.erase(m_programs.begin(),
                     m_programs.begin() + static_cast<std::ptrdiff_t>(m_programs.size() - m_options.maxPrograms));
  if (m_programs.empty()) return;
  auto booster = train();
  if (!booster) {
    m_lastError = booster.error();
    return;
  }
  m_lastError.reset();
  setBooster(*booster);
}

/// A new booster trained on every kept program with pack-sum squared-error gradients.
Expected<void*> XgbModel::train() const {
  std::vector<double> best(m_workloads.size(), 0.0);
  for (const Program& p : m_programs)
    best[p.workload] = std::max(best[p.workload], p.gflops);
  std::vector<float> rows;
  std::vector<std::uint32_t> owner;         // program of each row
  std::vector<double> label, weight, count; // per program
  for (std::size_t i = 0; i < m_programs.size(); ++i) {
    const Program& p = m_programs[i];
    rows.insert(rows.end(), p.rows.begin(), p.rows.end());
    owner.insert(owner.end(), p.rows.size() / kFeatureCount, static_cast<std::uint32_t>(i));
    count.push_back(static_cast<double>(p.rows.size() / kFeatureCount));
    const double y = best[p.workload] > 0 ? p.gflops / best[p.workload] : 0.0;
    label.push_back(y);
    weight.push_back(std::max(y, m_options.minWeight));
  }
  auto matrix = makeDMatrix(rows);
  if (!matrix) return Unexpected(matrix.error());
  std::vector<float> rowLabels(owner.size());
  for (std::size_t r = 0; r < owner.size(); ++r)
    rowLabels[r] = static_cast<float>(label[owner[r]]);
  if (XGDMatrixSetFloatInfo(matrix->get(), "label", rowLabels.data(), rowLabels.size()) != 0)
    return Unexpected(xgbError("set the training labels"));

  DMatrixHandle train[] = {matrix->get()};
  BoosterHandle raw = nullptr;
  if (XGBoosterCreate(train, 1, &raw) != 0) return Unexpected(xgbError("create a booster"));
  BoosterPtr booster(raw);
  if (auto ok = setParams(booster.get(), m_options); !ok) return Unexpected(ok.error());

  std::vector<float> grad(owner.size()), hess(owner.size());
  std::vector<double> sum(m_programs.size());
  for (int round = 0; round < m_options.rounds; ++round) {
    auto preds = rowPredictions(booster.get(), matrix->get(), owner.size(), true);
    if (!preds) return Unexpected(preds.error());
    std::fill(sum.begin(), sum.end(), 0.0);
    for (std::size_t r = 0; r < owner.size(); ++r)
      sum[owner[r]] += (*preds)[r];
    for (std::size_t r = 0; r < owner.size(); ++r) {
      const std::uint32_t p = owner[r];
      grad[r] = static_cast<float>(weight[p] * (sum[p] - label[p]));
      hess[r] = static_cast<float>(weight[p] * count[p]);
    }
    if (XGBoosterBoostOneIter(booster.get(), matrix->get(), grad.data(), hess.data(), grad.size()) != 0)
      return Unexpected(xgbError("run a boosting round"));
  }
  return booster.release();
}

Expected<void> XgbModel::save(const std::filesystem::path& path) const {
  std::string data(kDataMagic, sizeof(kDataMagic) - 1);
  put<std::uint32_t>(data, kFeatureCount);
  put<std::uint32_t>(data, m_booster ? 1 : 0);
  put<std::uint32_t>(data, static_cast<std::uint32_t>(m_workloads.size()));
  for (const auto& w : m_workloads) {
    put<std::uint32_t>(data, static_cast<std::uint32_t>(w.size()));
    data += w;
  }
  put<std::uint64_t>(data, m_programs.size());
  for (const Program& p : m_programs) {
    put<std::uint32_t>(data, p.workload);
    put<double>(data, p.gflops);
    put<std::uint32_t>(data, static_cast<std::uint32_t>(p.rows.size() / kFeatureCount));
    data.append(reinterpret_cast<const char*>(p.rows.data()), p.rows.size() * sizeof(float));
  }
  if (m_booster) {
    bst_ulong len = 0;
    const char* json = nullptr;
    if (XGBoosterSaveModelToBuffer(m_booster, R"({"format": "json"})", &len, &json) != 0)
      return Unexpected(xgbError("save the model"));
    if (auto ok = writeFile(path, std::string_view(json, len)); !ok) return ok;
  }
  return writeFile(dataPath(path), data);
}

Expected<void> XgbModel::load(const std::filesystem::path& path) {
  std::vector<Program> programs;
  std::vector<std::string> workloads;
  bool trained = true;
  if (std::filesystem::exists(dataPath(path))) {
    auto bytes = readFile(dataPath(path));
    if (!bytes) return Unexpected(bytes.error());
    auto bad = [&](const std::string& why) {
      return Unexpected(Diagnostic::error("tune.model-format", "'" + quoteForMessage(dataPath(path).string()) +
                                                                   "' is not a cost model's training data: " + why));
    };
    Reader in(*bytes);
    std::string magic;
    std::uint32_t features = 0, flag = 0, nWorkloads = 0;
    if (!in.bytes(sizeof(kDataMagic) - 1, magic) || magic != kDataMagic) return bad("no LSXGBD01 header");
    if (!in.get(features) || !in.get(flag) || !in.get(nWorkloads)) return bad("truncated header");
    if (features != kFeatureCount)
      return bad("it has " + std::to_string(features) + " features per row, this build " +
                 std::to_string(kFeatureCount));
    trained = flag != 0;
    for (std::uint32_t i = 0; i < nWorkloads; ++i) {
      std::uint32_t len = 0;
      std::string w;
      if (!in.get(len) || !in.bytes(len, w)) return bad("truncated workload list");
      workloads.push_back(std::move(w));
    }
    std::uint64_t nPrograms = 0;
    if (!in.get(nPrograms)) return bad("truncated program count");
    for (std::uint64_t i = 0; i < nPrograms; ++i) {
      Program p;
      std::uint32_t nRows = 0;
      if (!in.get(p.workload) || !in.get(p.gflops) || !in.get(nRows) ||
          !in.floats(static_cast<std::size_t>(nRows) * kFeatureCount, p.rows))
        return bad("truncated program " + std::to_string(i));
      if (p.workload >= workloads.size()) return bad("program " + std::to_string(i) + " names no workload");
      programs.push_back(std::move(p));
    }
    if (!in.atEnd()) return bad("trailing bytes");
  }
  BoosterPtr booster;
  if (trained) {
    auto json = readFile(path);
    if (!json) return Unexpected(json.error());
    BoosterHandle raw = nullptr;
    if (XGBoosterCreate(nullptr, 0, &raw) != 0) return Unexpected(xgbError("create a booster"));
    booster.reset(raw);
    if (XGBoosterLoadModelFromBuffer(raw, json->data(), json->size()) != 0)
      return Unexpected(xgbError("load the model '" + quoteForMessage(path.string()) + "'"));
    if (XGBoosterSetParam(raw, "nthread", std::to_string(std::max(1, m_options.threads)).c_str()) != 0)
      return Unexpected(xgbError("set a booster parameter"));
  }
  m_programs = std::move(programs);
  m_workloads = std::move(workloads);
  setBooster(booster.release());
  m_lastError.reset();
  return {};
}

Expected<std::unique_ptr<CostModel>> makeCostModel(std::string_view name, std::uint64_t seed, int threads) {
  if (name == "xgb") {
    XgbOptions options;
    options.seed = seed;
    return std::make_unique<XgbModel>(std::move(options));
  }
  if (name == "random") return std::make_unique<RandomModel>(seed);
  if (name == "prior")
    return std::make_unique<PriorModel>(PriorOptions::host(
        threads > 0 ? threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()))));
  return Unexpected(Diagnostic::error("tune.bad-model", "unknown cost model '" + quoteForMessage(name) +
                                                            "' (known: xgb, random, prior)"));
}

double rankCorrelation(std::span<const double> a, std::span<const double> b) {
  LS_ASSERT(a.size() == b.size(), "rank correlation of sequences of different lengths");
  const std::size_t n = a.size();
  if (n < 2) return 0;
  // NaN ranks below every number (a strict weak order, unlike `<`).
  auto less = [](double x, double y) { return std::isnan(x) ? !std::isnan(y) : !std::isnan(y) && x < y; };
  auto ranks = [&](std::span<const double> v) {
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return less(v[x], v[y]); });
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n;) {
      std::size_t j = i;
      while (j + 1 < n && !less(v[order[i]], v[order[j + 1]]))
        ++j;
      for (std::size_t k = i; k <= j; ++k)
        r[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
      i = j + 1;
    }
    return r;
  };
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double mean = (static_cast<double>(n) + 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (va == 0 || vb == 0) return 0;
  return cov / std::sqrt(va * vb);
}

} // namespace loopscape::tune
