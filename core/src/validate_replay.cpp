// The rules of replay nodes across their keys and tables (validate.hpp):
// what a replay node may not have (a command, ports, a framework, elastic
// replicas), what a table's kind fixes, and settings that could never
// sample or would deadlock; docs/topology.md "Replay nodes" lists the same.
#include <string>
#include <tuple>

#include "replay_table.hpp"
#include "validate.hpp"

namespace slipway::core {
namespace {

std::string selector_text(const ReplaySelector& s) {
  if (s.type != ReplaySelectorType::prioritized) return in_quotes(to_string(s.type));
  return "{ prioritized = " + replay_number_text(s.exponent) + " }";
}

void check_not_replay(Reader& r, const NodeSpec& node) {
  const std::string fix = "; set type = \"replay\" or remove it";
  if (node.replay.tables_where.known()) {
    r.error(node.replay.tables_where, "'tables' in node " + in_quotes(node.name.value) +
                                          " belongs to replay nodes only, and this node's type is " +
                                          in_quotes(to_string(node.type.value)) + fix);
  }
  if (node.replay.checkpoint.where.known()) {
    r.error(node.replay.checkpoint.where, "'checkpoint' in node " + in_quotes(node.name.value) +
                                              " belongs to replay nodes only, and this node's type is " +
                                              in_quotes(to_string(node.type.value)) + fix);
  }
}

void check_replay_keys(Reader& r, const NodeSpec& node) {
  const std::string in = " in node " + in_quotes(node.name.value);
  if (node.command.where.known()) {
    r.error(node.command.where, "'command'" + in + ": a replay node runs slipway's replay server (" +
                                    std::string(kReplayProgram) + ") over its tables; remove 'command' "
                                    "(or make it type = \"courier\" to run a server of your own)");
  }
  if (!node.ports.empty()) {
    r.error(node.ports.front().where, "'ports'" + in + ": a replay node is reached by courier through its "
                                                       "name and listens on no named port; remove 'ports'");
  }
  if (node.framework.value != Framework::none) {
    r.error(node.framework.where, "'framework'" + in + " is " + in_quotes(to_string(node.framework.value)) +
                                      ", but a replay node runs no framework; remove it (or set it to \"none\")");
  }
  if (node.replicas.value.elastic()) {
    r.error(node.replicas.where, "'replicas'" + in + " is elastic, but a replay node's replicas are shards "
                                                     "that each hold their own items; give a fixed count");
  }
  if (node.replay.tables.empty()) {
    const SourceLocation at = node.replay.tables_where.known() ? node.replay.tables_where : node.name.where;
    r.error(at, "replay node " + in_quotes(node.name.value) + " has no tables; add one, e.g. [node." +
                    node.name.value + ".tables.experience] with max_size = 100000");
  }
}

// A queue, stack or work table fixes its sampler, remover,
// max_times_sampled and rate limiter: one given otherwise is refused.
void check_fixed_by_kind(Reader& r, const ReplayTable& table, const std::string& in) {
  const ReplayTable fixed = replay_table_defaults(table.kind.value);
  const std::string kind = "a " + std::string(to_string(table.kind.value)) + " table";
  for (const auto& [key, field, fixed_value] :
       {std::tuple{"sampler", &table.sampler, fixed.sampler.value},
        std::tuple{"remover", &table.remover, fixed.remover.value}}) {
    if (field->where.known() && !(field->value == fixed_value)) {
      r.error(field->where, "'" + std::string(key) + "'" + in + " is " + selector_text(field->value) + ", but " +
                                kind + " always uses " + selector_text(fixed_value) + "; remove '" + key +
                                "' (or make it kind = \"table\")");
    }
  }
  if (table.max_times_sampled.where.known() && table.max_times_sampled.value != 1) {
    r.error(table.max_times_sampled.where, "'max_times_sampled'" + in + " is " +
                                               std::to_string(table.max_times_sampled.value) + ", but " + kind +
                                               " hands each item out once; remove 'max_times_sampled'");
  }
  if (table.rate_limiter.where.known()) {
    r.error(table.rate_limiter.where, "'rate_limiter'" + in + ": " + kind + " has its own (one sample per "
                                          "insert, inserts wait while it holds max_size items); remove "
                                          "'rate_limiter'");
  }
}

void check_table(Reader& r, const NodeSpec& node, const ReplayTable& table) {
  const std::string in = " in table " + in_quotes(table.name.value) + " of node " + in_quotes(node.name.value);
  if (table.kind.value != ReplayTableKind::table) check_fixed_by_kind(r, table, in);
  if (table.lease_ms.where.known() && table.kind.value != ReplayTableKind::work) {
    r.error(table.lease_ms.where, "'lease'" + in + " applies to work tables only (items handed out on "
                                                   "lease); set kind = \"work\" or remove 'lease'");
  }
  const ReplayRateLimiter& limiter = table.rate_limiter.value;
  if (!table.rate_limiter.where.known()) return;
  const bool ratio = limiter.type == ReplayRateLimiterType::ratio;
  const std::uint64_t min_size = ratio ? limiter.min_size_to_sample : limiter.min_size;
  if (min_size > table.max_size.value) {
    const std::string key = ratio ? "min_size_to_sample" : "min_size";
    r.error(table.rate_limiter.where, "'rate_limiter'" + in + " waits for " + key + " = " +
                                          std::to_string(min_size) + " items before it samples, but the "
                                          "table holds at most max_size = " + std::to_string(table.max_size.value) +
                                          ", so it could never sample; lower " + key + " or raise max_size");
  }
  // Each item leaves after max_times_sampled samples, so samples can never
  // keep up with inserts * samples_per_insert: inserts would wait for
  // samples of an empty table.
  if (ratio && table.max_times_sampled.value > 0 &&
      limiter.samples_per_insert > static_cast<double>(table.max_times_sampled.value)) {
    r.error(table.rate_limiter.where,
            "'rate_limiter'" + in + " asks for samples_per_insert = " +
                replay_number_text(limiter.samples_per_insert) + ", but max_times_sampled = " +
                std::to_string(table.max_times_sampled.value) + " removes each item after that many "
                "samples: the table would run dry while inserts wait for samples, a deadlock; lower "
                "samples_per_insert or raise max_times_sampled (0: unlimited)");
  }
}

}  // namespace

void check_replay(Reader& r, const NodeSpec& node) {
  if (node.type.value != NodeType::replay) {
    check_not_replay(r, node);
    return;
  }
  check_replay_keys(r, node);
  for (const ReplayTable& table : node.replay.tables) check_table(r, node, table);
}

}  // namespace slipway::core
