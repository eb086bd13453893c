#include "core/poly/isl_util.h"

#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/printer.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/val.h>

#include <cstdlib>

namespace loopscape::poly::detail {

namespace {
struct ThreadContext {
  isl_ctx* ctx = nullptr;
  ThreadContext() {
    ctx = isl_ctx_alloc();
    // C-API calls report failures as null results (checked by `check`), never abort.
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  }
  ~ThreadContext() { isl_ctx_free(ctx); }
};
} // namespace

isl::ctx islContext() {
  thread_local ThreadContext context;
  return isl::ctx(context.ctx);
}

IslStopScope::IslStopScope(const std::stop_token& stop) : m_ctx(islContext().get()) {
  if (stop.stop_possible()) m_callback.emplace(stop, std::function<void()>([ctx = m_ctx] { isl_ctx_abort(ctx); }));
}

IslStopScope::~IslStopScope() {
  m_callback.reset(); // no abort after this point
  isl_ctx_resume(m_ctx);
}

bool IslStopScope::cancelled() const { return isl_ctx_aborted(m_ctx) != 0; }

IslQuotaScope::IslQuotaScope(unsigned long maxOperations)
    : m_ctx(islContext().get()), m_previous(isl_ctx_get_max_operations(m_ctx)) {
  isl_ctx_reset_error(m_ctx);
  isl_ctx_set_max_operations(m_ctx, maxOperations);
  isl_ctx_reset_operations(m_ctx);
}

IslQuotaScope::~IslQuotaScope() { isl_ctx_set_max_operations(m_ctx, m_previous); }

bool IslQuotaScope::exceeded() const { return isl_ctx_last_error(m_ctx) == isl_error_quota; }

isl::id makeId(const std::string& name) {
  return isl::manage(check(isl_id_alloc(islContext().get(), name.c_str(), nullptr), "isl_id_alloc"));
}

isl::space setSpace(const std::vector<std::string>& params, const std::string& tuple,
                    const std::vector<std::string>& dims) {
  isl_space* sp = check(isl_space_set_alloc(islContext().get(), static_cast<unsigned>(params.size()),
                                            static_cast<unsigned>(dims.size())),
                        "isl_space_set_alloc");
  for (std::size_t i = 0; i < params.size(); ++i)
    sp = isl_space_set_dim_id(sp, isl_dim_param, static_cast<unsigned>(i), makeId(params[i]).release());
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (!dims[i].empty()) sp = isl_space_set_dim_id(sp, isl_dim_set, static_cast<unsigned>(i), makeId(dims[i]).release());
  if (!tuple.empty()) sp = isl_space_set_tuple_id(sp, isl_dim_set, makeId(tuple).release());
  return isl::manage(check(sp, "building a space"));
}

isl::union_map lexGeUnionMap(const isl::union_map& m1, const isl::union_map& m2) {
  return isl::manage(check(isl_union_map_lex_ge_union_map(m1.copy(), m2.copy()), "isl_union_map_lex_ge_union_map"));
}

std::vector<std::int64_t> pointCoordinates(const isl::point& p) {
  std::vector<std::int64_t> out;
  isl_space* sp = check(isl_point_get_space(p.get()), "isl_point_get_space");
  const isl_size n = isl_space_dim(sp, isl_dim_set);
  isl_space_free(sp);
  for (isl_size i = 0; i < n; ++i) {
    isl::val v = isl::manage(check(isl_point_get_coordinate_val(p.get(), isl_dim_set, i), "point coordinate"));
    out.push_back(v.get_num_si());
  }
  return out;
}

std::string pointTupleName(const isl::point& p) {
  isl_space* sp = check(isl_point_get_space(p.get()), "isl_point_get_space");
  const char* name = isl_space_get_tuple_name(sp, isl_dim_set);
  std::string out = name ? name : "";
  isl_space_free(sp);
  return out;
}

isl::schedule scheduleSequence(const isl::schedule& a, const isl::schedule& b) {
  return isl::manage(check(isl_schedule_sequence(a.copy(), b.copy()), "isl_schedule_sequence"));
}

isl::schedule scheduleInsertBand(const isl::schedule& s, const isl::multi_union_pw_aff& band) {
  return isl::manage(
      check(isl_schedule_insert_partial_schedule(s.copy(), band.copy()), "isl_schedule_insert_partial_schedule"));
}

isl::schedule scheduleInsertMark(const isl::schedule& s, const std::string& name) {
  isl::schedule_node root = s.root();
  isl::schedule_node child = root.child(0);
  isl_schedule_node* marked = check(isl_schedule_node_insert_mark(child.copy(), makeId(name).release()),
                                    "isl_schedule_node_insert_mark");
  isl::schedule_node node = isl::manage(marked);
  return node.schedule();
}

std::string scheduleToBlockYaml(const isl::schedule& s) {
  isl_printer* p = check(isl_printer_to_str(islContext().get()), "isl_printer_to_str");
  p = isl_printer_set_yaml_style(p, ISL_YAML_STYLE_BLOCK);
  p = isl_printer_print_schedule(p, s.get());
  char* text = isl_printer_get_str(p);
  isl_printer_free(p);
  check(text, "printing a schedule");
  std::string out = text;
  std::free(text);
  return out;
}

std::string markName(const isl::schedule_node& node) {
  isl_id* id = check(isl_schedule_node_mark_get_id(node.get()), "isl_schedule_node_mark_get_id");
  std::string out = isl_id_get_name(id) ? isl_id_get_name(id) : "";
  isl_id_free(id);
  return out;
}

std::string nodeTypeName(const isl::schedule_node& node) {
  switch (isl_schedule_node_get_type(node.get())) {
  case isl_schedule_node_band: return "band";
  case isl_schedule_node_context: return "context";
  case isl_schedule_node_domain: return "domain";
  case isl_schedule_node_expansion: return "expansion";
  case isl_schedule_node_extension: return "extension";
  case isl_schedule_node_filter: return "filter";
  case isl_schedule_node_leaf: return "leaf";
  case isl_schedule_node_guard: return "guard";
  case isl_schedule_node_mark: return "mark";
  case isl_schedule_node_sequence: return "sequence";
  case isl_schedule_node_set: return "set";
  case isl_schedule_node_error: break;
  }
  throw IslError("isl: unknown schedule node type");
}

} // namespace loopscape::poly::detail
