// Reading one node-like table ([node.NAME] or [defaults]) into a NodeSpec:
// one handler per key, each checking its value's type and range.
#pragma once

#include <string_view>

#include <toml++/toml.h>

#include "reader.hpp"
#include "slipway/core/topology.hpp"

namespace slipway::core {

// Keys that only make sense for one node and so are refused in [defaults].
bool allowed_in_defaults(std::string_view key);

// Applies every key of `table` to `spec`. `where_text` names the table in
// messages ("in node 'learner'", "in [defaults]"). `env` entries merge by
// variable name; every other key replaces the value already in `spec`.
void read_node_table(Reader& reader, const toml::table& table, NodeSpec& spec,
                     std::string_view where_text, bool is_defaults);

// "WHAT is 'S', which is not one of A, B; did you mean 'A'?" at `v`.
void not_one_of(Reader& r, const toml::node& v, const std::string& what, const std::string& s,
                const std::vector<std::string_view>& names);

// Reads an elastic table ([node.NAME.elastic], [program.elastic]) into
// `field`; `what` names it in messages ("'elastic' in node 'actor'").
// The satellite keys are read only in [program.elastic] (program_level).
inline constexpr std::int64_t kMaxSatellites = 64;
void read_elastic_table(Reader& reader, const toml::node& value, Located<ElasticSettings>& field,
                        const std::string& what, bool program_level);

}  // namespace slipway::core
