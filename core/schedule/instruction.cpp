#include "core/schedule/instruction.h"

#include "core/schedule/primitive/families.h"

#include <deque>
#include <mutex>

namespace loopscape::schedule {

std::vector<FamilyFn> builtinFamilies() {
  return {queryKinds,   loopTransformKinds,   loopExtraKinds, annotateKinds, samplingKinds,
          computeLocationKinds, cacheKinds, reductionKinds, blockizeLayoutKinds};
}

namespace {
struct Registry {
  std::mutex mutex;
  std::deque<InstructionKind> kinds; // deque: pointers stay valid as kinds are added
  bool builtinsAdded = false;
};

Registry& registry() {
  static Registry r;
  return r;
}

/// The editor an attribute gets when its row leaves it to the default value.
ParamKind kindOfDefault(const TraceValue& v) {
  if (v.get<bool>()) return ParamKind::Bool;
  if (v.get<std::int64_t>()) return ParamKind::Int;
  if (v.get<double>()) return ParamKind::Float;
  if (v.get<std::string>()) return ParamKind::Text;
  if (v.get<TraceList>()) return ParamKind::IntList;
  return ParamKind::Literal;
}

void addLocked(Registry& r, std::span<const InstructionKind> kinds) {
  for (const auto& k : kinds) {
    for (const auto& existing : r.kinds)
      LS_ASSERT(existing.name != k.name && existing.jsonName != k.jsonName, "instruction kind {} registered twice",
                k.name);
    LS_ASSERT(k.inputSpecs.size() == k.inputNames.size(), "instruction kind {} has {} inputs but {} input specs",
              k.name, k.inputNames.size(), k.inputSpecs.size());
    InstructionKind& added = r.kinds.emplace_back(k);
    for (AttrSpec& a : added.attrs)
      if (a.kind == ParamKind::Auto) a.kind = kindOfDefault(a.defaultValue);
  }
}

Registry& withBuiltins() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (!r.builtinsAdded) {
    r.builtinsAdded = true;
    for (auto family : builtinFamilies()) addLocked(r, family());
  }
  return r;
}
} // namespace

void registerInstructionKinds(std::span<const InstructionKind> kinds) {
  auto& r = withBuiltins();
  std::lock_guard lock(r.mutex);
  addLocked(r, kinds);
}

const InstructionKind* findInstructionKind(std::string_view name) {
  auto& r = withBuiltins();
  std::lock_guard lock(r.mutex);
  for (const auto& k : r.kinds)
    if (k.name == name || k.jsonName == name) return &k;
  return nullptr;
}

std::vector<const InstructionKind*> instructionKinds() {
  auto& r = withBuiltins();
  std::lock_guard lock(r.mutex);
  std::vector<const InstructionKind*> out;
  for (const auto& k : r.kinds) out.push_back(&k);
  return out;
}

} // namespace loopscape::schedule
