// The node keys of a topology and how each is read (node_table.hpp). The
// list here is what topology_keys("node") reports and docs/topology.md must
// document.
// Over 500 lines, one concern: the table of every node key with its reader;
// a split would scatter the one list that topology_keys() and the docs check.
#include "node_table.hpp"

#include <csignal>
#include <algorithm>
#include <array>

#include "limits.hpp"
#include "names.hpp"
#include "replay_table.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/quantities.hpp"

namespace slipway::core {
namespace {

using Handler = void (*)(Reader&, const toml::node&, NodeSpec&, const std::string& what);

struct NodeKey {
  std::string_view name;
  bool in_defaults;
  Handler read;
};

// Reads a count into `field`, keeping the location even when the value is bad
// (so later checks know the key was given).
template <class T>
void read_count(Reader& r, const toml::node& v, Located<T>& field, const std::string& what,
                std::int64_t min, std::int64_t max) {
  field.where = location_of(v);
  if (auto i = r.integer(v, what, min, max)) field.value = static_cast<T>(*i);
}

void read_slurm_word(Reader& r, const toml::node& v, Located<std::string>& field, const std::string& what) {
  field.where = location_of(v);
  auto s = r.nonempty_string(v, what);
  if (!s) return;
  if (s->find_first_of(" \t\r\n") != std::string::npos) {
    r.error(location_of(v), what + " contains blanks; Slurm takes a single word (use ',' for lists)");
    return;
  }
  field.value = std::move(*s);
}

template <class Enum>
void read_enum(Reader& r, const toml::node& v, Located<Enum>& field, const std::string& what,
               std::optional<Enum> (*from_string)(std::string_view),
               const std::vector<std::string_view>& names) {
  field.where = location_of(v);
  auto s = r.string(v, what);
  if (!s) return;
  if (auto e = from_string(*s)) {
    field.value = *e;
    return;
  }
  not_one_of(r, v, what, *s, names);
}

// One of two words: false for `off`, true for `on`.
std::optional<bool> read_either(Reader& r, const toml::node& v, const std::string& what, std::string_view off,
                                std::string_view on) {
  auto s = r.string(v, what);
  if (!s) return std::nullopt;
  if (*s == off || *s == on) return *s == on;
  not_one_of(r, v, what, *s, {off, on});
  return std::nullopt;
}

// tls / net_devices: a comma-separated string or an array of strings.
std::optional<std::string> read_ucx_list(Reader& r, const toml::node& v, const std::string& what) {
  if (v.is_array()) {
    auto list = r.string_list(v, what);
    if (!list) return std::nullopt;
    std::string joined;
    for (const auto& s : *list) joined += (joined.empty() ? "" : ",") + s.value;
    if (joined.empty()) r.error(location_of(v), what + " is empty; list at least one or remove it");
    return joined;
  }
  return r.nonempty_string(v, what);
}

void read_ucx(Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
  n.ucx.where = location_of(v);
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), what + " must be a table, not " + std::string(type_name(v)) +
                                "; write ucx = { tls = \"tcp\" }");
    return;
  }
  for (const auto& [key, value] : *t) {
    const std::string key_what = "'ucx." + shown(key.str()) + "'" + what.substr(what.find(' '));
    if (key == "tls") {
      n.ucx.value.tls = read_ucx_list(r, value, key_what);
    } else if (key == "net_devices") {
      n.ucx.value.net_devices = read_ucx_list(r, value, key_what);
    } else if (key == "rndv_thresh") {
      if (value.is_integer()) {
        if (auto bytes = r.integer(value, key_what, 0, std::int64_t{1} << 50)) {
          n.ucx.value.rndv_thresh = std::to_string(*bytes);
        }
      } else {
        n.ucx.value.rndv_thresh = r.nonempty_string(value, key_what);
      }
    } else {
      r.unknown_key(key, "in the ucx table" + what.substr(what.find(' ')), topology_keys("ucx"));
    }
  }
}

// `settle`: seconds, an integer or a decimal number, 0 to 600.
std::optional<std::uint32_t> read_seconds_ms(Reader& r, const toml::node& v, const std::string& what) {
  double seconds = 0;
  if (const auto* i = v.as_integer()) {
    seconds = static_cast<double>(i->get());
  } else if (const auto* f = v.as_floating_point()) {
    seconds = f->get();
  } else {
    r.error(location_of(v), what + " must be seconds (a number such as 1 or 0.5), not " +
                                std::string(type_name(v)));
    return std::nullopt;
  }
  if (!(seconds >= 0 && seconds <= 600)) {
    r.error(location_of(v), what + " is out of range; give 0 to 600 seconds");
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(seconds * 1000 + 0.5);
}

void read_env(Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), what + " must be a table, not " + std::string(type_name(v)) +
                                "; write env = { NAME = \"value\" }");
    return;
  }
  if (t->size() > limits::kMaxListLength) {
    r.error(location_of(v), what + " has more than " + std::to_string(limits::kMaxListLength) + " variables");
    return;
  }
  for (const auto& [key, value] : *t) {
    const std::string name(key.str());
    const std::string var_what = "variable '" + shown(name) + "' of 'env'" + what.substr(what.find(' '));
    if (!is_valid_env_name(name)) {
      r.error(location_of(key), var_what + " is not a valid variable name; use letters, digits and "
                                           "'_', not starting with a digit");
      continue;
    }
    if (name.starts_with(env::kReservedPrefix)) {
      r.error(location_of(key), var_what + " uses the reserved prefix " + std::string(env::kReservedPrefix) + ", which slipway sets "
                                           "itself; rename it");
      continue;
    }
    std::optional<std::string> text;
    if (const auto* i = value.as_integer()) {
      text = std::to_string(i->get());
    } else if (const auto* b = value.as_boolean()) {
      text = b->get() ? "true" : "false";
    } else if (value.is_string()) {
      text = r.string(value, var_what);
    } else {
      r.error(location_of(value), var_what + " must be a string, integer or boolean, not " +
                                      std::string(type_name(value)) + "; put it in double quotes");
    }
    if (!text) continue;
    EnvVar var{{name, location_of(key)}, {std::move(*text), location_of(value)}};
    auto same = std::find_if(n.env.begin(), n.env.end(),
                             [&](const EnvVar& e) { return e.name.value == name; });
    if (same != n.env.end()) {
      *same = std::move(var);  // a node's own value overrides [defaults]
    } else {
      n.env.push_back(std::move(var));
    }
  }
}

const std::vector<std::string_view>& framework_names() {
  static const std::vector<std::string_view> names{"none",    "torch",  "tensorflow", "jax",
                                                   "horovod", "paddle", "mpi"};
  return names;
}

// notice_signal: the signals a command may take a checkpoint notice by.
constexpr std::pair<std::string_view, int> kNoticeSignals[] = {
    {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2}, {"SIGHUP", SIGHUP},   {"SIGINT", SIGINT},
    {"SIGTERM", SIGTERM}, {"SIGQUIT", SIGQUIT}, {"SIGALRM", SIGALRM}, {"SIGCONT", SIGCONT},
    {"SIGPWR", SIGPWR},   {"SIGWINCH", SIGWINCH}};

std::optional<int> notice_signal_from_name(std::string_view s) {
  for (const auto& [name, number] : kNoticeSignals) {
    if (s == name) return number;
  }
  return std::nullopt;
}

const std::vector<std::string_view>& notice_signal_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const auto& entry : kNoticeSignals) out.push_back(entry.first);
    return out;
  }();
  return names;
}

const std::vector<std::string_view>& node_type_names() {
  static const std::vector<std::string_view> names{"exec", "courier", "replay"};
  return names;
}

const std::array<NodeKey, 26> kNodeKeys{{
    {"command", false,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.command.where = location_of(v);
       auto argv = r.argv(v, what);
       if (!argv) return;
       if (argv->empty()) {
         r.error(location_of(v), what + " is empty; give the program to run, e.g. command = "
                                        "[\"python3\", \"main.py\"]");
         return;
       }
       if (argv->front().empty()) {
         r.error(location_of(v), what + " starts with an empty word; give the program to run first");
         return;
       }
       n.command.value = std::move(*argv);
     }},
    {"wrapper", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.wrapper.where = location_of(v);
       auto argv = r.argv(v, what);
       if (!argv) return;
       if (!argv->empty() && argv->front().empty()) {
         r.error(location_of(v), what + " starts with an empty word; give the wrapper program");
         return;
       }
       n.wrapper.value = std::move(*argv);  // [] clears a wrapper from [defaults]
     }},
    {"type", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_enum(r, v, n.type, what, &node_type_from_string, node_type_names());
     }},
    {"replicas", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.replicas.where = location_of(v);
       if (v.is_integer()) {
         if (auto i = r.integer(v, what, 1, limits::kMaxReplicas)) {
           n.replicas.value = {static_cast<std::uint32_t>(*i), static_cast<std::uint32_t>(*i)};
         }
         return;
       }
       if (!v.is_string()) {
         r.error(location_of(v), what + " must be an integer or a \"MIN:MAX\" string, not " +
                                     std::string(type_name(v)));
         return;
       }
       auto s = r.string(v, what);
       if (!s) return;
       std::string reason;
       if (auto range = parse_replica_range(*s, reason)) {
         n.replicas.value = *range;
       } else {
         r.error(location_of(v), what + " is \"" + *s + "\": " + reason);
       }
     }},
    {"cpus", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_count(r, v, n.cpus, what, 1, limits::kMaxCpus);
     }},
    {"gpus", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_count(r, v, n.gpus, what, 0, limits::kMaxGpus);
     }},
    {"mem", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.mem_mb.where = location_of(v);
       if (v.is_integer()) {
         if (auto i = r.integer(v, what, 1, static_cast<std::int64_t>(limits::kMaxMemMb))) {
           n.mem_mb.value = static_cast<std::uint64_t>(*i);
         }
         return;
       }
       if (!v.is_string()) {
         r.error(location_of(v), what + " must be a size string such as \"16G\" or an integer of "
                                        "MiB, not " + std::string(type_name(v)));
         return;
       }
       auto s = r.string(v, what);
       if (!s) return;
       std::string reason;
       if (auto mb = parse_memory_mb(*s, reason)) {
         n.mem_mb.value = *mb;
       } else {
         r.error(location_of(v), what + " is \"" + *s + "\": " + reason);
       }
     }},
    {"framework", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_enum(r, v, n.framework, what, &framework_from_string, framework_names());
     }},
    {"handles", false,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       if (auto list = r.string_list(v, what)) n.handles = std::move(*list);
     }},
    {"ports", false,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       if (auto list = r.string_list(v, what)) n.ports = std::move(*list);
     }},
    {"env", true, &read_env},
    {"workdir", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.workdir.where = location_of(v);
       if (auto s = r.nonempty_string(v, what)) n.workdir.value = std::move(*s);
     }},
    {"notice_signal", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_enum(r, v, n.notice_signal, what, &notice_signal_from_name, notice_signal_names());
     }},
    {"daemon", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.daemon.where = location_of(v);
       if (auto b = r.boolean(v, what)) n.daemon.value = *b;
     }},
    {"max_retries", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_count(r, v, n.max_retries, what, 0, limits::kMaxRetries);
     }},
    {"colocate", false,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.colocate.where = location_of(v);
       auto s = r.nonempty_string(v, what);
       if (!s) return;
       if (!is_valid_port_name(*s)) {
         r.error(location_of(v), what + " '" + shown(*s) + "' is not a valid group name; use letters, "
                                        "digits, '_' and '-', starting with a letter");
         return;
       }
       n.colocate.value = std::move(*s);
     }},
    {"nodes", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_count(r, v, n.hosts, what, 1, limits::kMaxHosts);
     }},
    {"partition", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_slurm_word(r, v, n.partition, what);
     }},
    {"constraint", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_slurm_word(r, v, n.constraint, what);
     }},
    {"account", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_slurm_word(r, v, n.account, what);
     }},
    {"qos", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_slurm_word(r, v, n.qos, what);
     }},
    {"time", true,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       n.time_minutes.where = location_of(v);
       if (v.is_integer()) {
         if (auto i = r.integer(v, what, 1, limits::kMaxTimeMinutes)) {
           n.time_minutes.value = static_cast<std::uint32_t>(*i);
         }
         return;
       }
       if (!v.is_string()) {
         r.error(location_of(v), what + " must be minutes (an integer) or a Slurm time string "
                                        "such as \"1:30:00\", not " + std::string(type_name(v)));
         return;
       }
       auto s = r.string(v, what);
       if (!s) return;
       std::string reason;
       if (auto minutes = parse_time_minutes(*s, reason)) {
         n.time_minutes.value = *minutes;
       } else {
         r.error(location_of(v), what + " is \"" + *s + "\": " + reason);
       }
     }},
    {"ucx", true, &read_ucx},
    {"elastic", false,
     [](Reader& r, const toml::node& v, NodeSpec& n, const std::string& what) {
       read_elastic_table(r, v, n.elastic, what, false);
     }},
    {"tables", false, &read_replay_tables},
    {"checkpoint", false, &read_replay_checkpoint},
}};

}  // namespace

void not_one_of(Reader& r, const toml::node& v, const std::string& what, const std::string& s,
                const std::vector<std::string_view>& names) {
  std::string message = what + " is '" + shown(s) + "', which is not one of ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    message += (i == 0 ? "" : ", ") + std::string(names[i]);
  }
  const std::string_view suggestion = closest_key(s, names);
  if (!suggestion.empty()) message += "; did you mean '" + std::string(suggestion) + "'?";
  r.error(location_of(v), std::move(message));
}

void read_elastic_table(Reader& r, const toml::node& v, Located<ElasticSettings>& field,
                        const std::string& what, bool program_level) {
  field.where = location_of(v);
  const auto* t = v.as_table();
  if (t == nullptr) {
    r.error(location_of(v), what + " must be a table, not " + std::string(type_name(v)) +
                                "; write elastic = { grow = \"manual\" }");
    return;
  }
  const std::string in = what.substr(what.find(' '));
  for (const auto& [key, value] : *t) {
    const std::string key_what = "'elastic." + shown(key.str()) + "'" + in;
    if (key == "grow") {
      if (auto manual = read_either(r, value, key_what, "auto", "manual")) field.value.grow_manual = manual;
    } else if (key == "on_loss") {
      if (auto shrink = read_either(r, value, key_what, "replace", "shrink")) field.value.shrink_on_loss = shrink;
    } else if (key == "settle") {
      if (auto ms = read_seconds_ms(r, value, key_what)) field.value.settle_ms = *ms;
    } else if (key == "satellites" || key == "satellite_wait") {
      if (!program_level) {
        r.error(location_of(key), key_what + " belongs to the whole program: set it in [program.elastic]");
        continue;
      }
      if (key == "satellite_wait") {
        if (auto ms = read_seconds_ms(r, value, key_what)) field.value.satellite_wait_ms = *ms;
        continue;
      }
      const auto* count = value.as_integer();
      if (count == nullptr || count->get() < 0 || count->get() > kMaxSatellites) {
        r.error(location_of(value), key_what + " must be a count of jobs, 0 to " +
                                        std::to_string(kMaxSatellites));
        continue;
      }
      field.value.satellites = static_cast<std::uint32_t>(count->get());
    } else {
      r.unknown_key(key, "in the elastic table" + in, topology_keys("elastic"));
    }
  }
}

bool allowed_in_defaults(std::string_view key) {
  for (const NodeKey& k : kNodeKeys) {
    if (k.name == key) return k.in_defaults;
  }
  return false;
}

void read_node_table(Reader& reader, const toml::table& table, NodeSpec& spec,
                     std::string_view where_text, bool is_defaults) {
  const auto& known = topology_keys(is_defaults ? "defaults" : "node");
  for (const auto& [key, value] : table) {
    const NodeKey* handler = nullptr;
    for (const NodeKey& k : kNodeKeys) {
      if (k.name == key.str()) handler = &k;
    }
    if (handler == nullptr) {
      reader.unknown_key(key, where_text, known);
      continue;
    }
    if (is_defaults && !handler->in_defaults) {
      reader.error(location_of(key), "key '" + shown(key.str()) +
                                         "' cannot be in [defaults]: it belongs to one node; set "
                                         "it in that [node.NAME] table");
      continue;
    }
    handler->read(reader, value, spec, "'" + std::string(key.str()) + "' " + std::string(where_text));
  }
}

const std::vector<std::string_view>& topology_keys(std::string_view table) {
  static const std::vector<std::string_view> top{"program", "defaults", "node"};
  static const std::vector<std::string_view> program{"name", "max_retries", "elastic", "metrics_port"};
  static const std::vector<std::string_view> elastic{"grow", "settle", "on_loss", "satellites",
                                                     "satellite_wait"};
  static const std::vector<std::string_view> ucx{"tls", "net_devices", "rndv_thresh"};
  static const std::vector<std::string_view> node = [] {
    std::vector<std::string_view> keys;
    for (const NodeKey& k : kNodeKeys) keys.push_back(k.name);
    return keys;
  }();
  static const std::vector<std::string_view> defaults = [] {
    std::vector<std::string_view> keys;
    for (const NodeKey& k : kNodeKeys) {
      if (k.in_defaults) keys.push_back(k.name);
    }
    return keys;
  }();
  static const std::vector<std::string_view> none;
  if (const auto* replay = replay_table_keys(table)) return *replay;
  if (table.empty()) return top;
  if (table == "program") return program;
  if (table == "defaults") return defaults;
  if (table == "node") return node;
  if (table == "ucx") return ucx;
  if (table == "elastic") return elastic;
  return none;
}

}  // namespace slipway::core
