// Internal to the feature extractor (features.cpp collects, features_access.cpp measures
// memory) and the prior model (prior_model.cpp reads the same walk): the records one walk
// over a lowered body produces. Not a public header.
#pragma once

#include "core/ir/buffer.h"
#include "core/tune/features.h"

#include <array>
#include <map>
#include <unordered_map>
#include <vector>

namespace loopscape::tune::detail {

/// Key of the vector-lanes pseudo-loop in an Affine (loops are keyed by their index).
constexpr int kLanesKey = -1;

/// An index as sum(coef[loop] * loopVar) + constant (lanes: coef[kLanesKey] * lane).
struct Affine {
  std::map<int, double> coef;
  double constant = 0;

  Affine plus(const Affine& other, double sign) const {
    Affine r = *this;
    r.constant += sign * other.constant;
    for (const auto& [key, c] : other.coef) {
      r.coef[key] += sign * c;
      if (r.coef[key] == 0) r.coef.erase(key);
    }
    return r;
  }
  Affine scaled(double factor) const {
    Affine r;
    r.constant = constant * factor;
    if (factor != 0)
      for (const auto& [key, c] : coef)
        r.coef[key] = c * factor;
    return r;
  }
};

struct Loop {
  const ir::ExprNode* var = nullptr;
  double extent = 1;
  bool parallel = false;
  int depth = 0;           ///< number of loops around it
  std::vector<int> stores; ///< stores in its body
};

struct Access {
  const ir::BufferNode* buffer = nullptr;
  Affine index;
  int lanes = 1;
  bool write = false;
  double bufferElements = 0;
};

/// Per innermost iteration, lane-weighted; indexed like the first feature::kVecLanes features.
using OpCounts = std::array<double, feature::kVecLanes>;

struct Store {
  std::vector<int> loops;       ///< enclosing loops, outermost first
  std::vector<double> extents;  ///< their extents, 1 for a loop pinned by a guard
  std::vector<Access> accesses; ///< the write first, then the loads left to right
  OpCounts ops{};
  int lanes = 1;
  double unroll = 1;
  bool guarded = false;
  /// 0 in the branch of an if/else (a version test, lower_unswitch.h) that its loops'
  /// midpoints do not take (features.h), else 1. The prior counts it; the features do not.
  double runs = 1;
  const ir::BufferNode* buffer = nullptr;
};

struct AllocInfo {
  double bytes = 0;
  int depth = 0; ///< loops around the Allocate
  bool local = false;
};

struct Program {
  std::vector<Loop> loops;
  std::vector<Store> stores;
  std::unordered_map<const ir::BufferNode*, AllocInfo> allocs;
};

/// The walk over a lowered body (features.h states what it records and how).
Program collectProgram(const ir::Stmt& body, const FeatureOptions& options);

enum class ReuseKind { None, LoopMultipleRead, SerialReadWrite };

/// One buffer of one store, unscaled (features.h defines each field).
struct BufferStats {
  const ir::BufferNode* buffer = nullptr;
  bool read = false, write = false;
  double bytes = 0, uniqueBytes = 0, lines = 0, uniqueLines = 0;
  ReuseKind reuse = ReuseKind::None;
  double reuseDisIter = 0, reuseDisBytes = 0, reuseCt = 0;
  double stride = 0;
};

/// Bytes touched by one iteration of a loop's body, by loop index (shared by its stores).
using BufferStatsCache = std::unordered_map<int, double>;

/// The store's buffers, ordered by bytes (descending, first appearance on ties).
std::vector<BufferStats> bufferStats(const Program& program, const Store& store, BufferStatsCache& cache);

/// Unique bytes of all the store's buffers with its loops at depth >= `level` iterating
/// (the lanes always iterate).
double storeBytesFrom(const Program& program, const Store& store, int level);

} // namespace loopscape::tune::detail
