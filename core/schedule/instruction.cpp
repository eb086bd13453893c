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

void addLocked(Registry& r, std::span<const InstructionKind> kinds) {
  for (const auto& k : kinds) {
    for (const auto& existing : r.kinds)
      LS_ASSERT(existing.name != k.name && existing.jsonName != k.jsonName, "instruction kind {} registered twice",
                k.name);
    r.kinds.push_back(k);
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
