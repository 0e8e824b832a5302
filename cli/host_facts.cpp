// What one host says about its slipway and Slurm set-up (see header).
#include "host_facts.hpp"
#include "slipway/base/local_address.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "command_output.hpp"
#include "elf_symbol.hpp"
#include "plugstack_config.hpp"
#include "slipway/spank/plugin_config.hpp"

namespace slipway::cli {
namespace {

using std::chrono::seconds;

// "Key = value" from `scontrol show config`.
std::string config_value(const std::string& config, const std::string& key) {
  std::regex line("(^|\\n)" + key + " *= *([^\\n]*)");
  std::smatch m;
  if (!std::regex_search(config, m, line)) return {};
  std::string value = m[2].str();
  while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.pop_back();
  return value == "(null)" ? std::string() : value;
}

// slurm.conf's own Key=Value lines as `scontrol show config` prints them
// ("Key = Value"), for when scontrol cannot ask slurmctld.
std::string slurm_conf_as_config() {
  const char* conf = std::getenv("SLURM_CONF");
  std::ifstream in(conf && *conf ? conf : "/etc/slurm/slurm.conf");
  std::string text, line;
  for (int n = 0; n < 10000 && std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    const auto eq = line.find('=');
    if (eq == std::string::npos || line.find(' ') < eq) continue;
    text += line.substr(0, eq) + " = " + line.substr(eq + 1) + "\n";
  }
  return text;
}

std::string check_munge(const std::string& auth_info) {  // AuthInfo of slurm.conf
  std::error_code ec;
  bool found = false;
  for (const char* dir : {"/usr/bin", "/usr/sbin", "/usr/local/bin"}) {
    found = found || std::filesystem::exists(std::string(dir) + "/munge", ec);
  }
  if (!found) return "absent";
  std::vector<std::string> socket;
  std::smatch m;
  if (std::regex_search(auth_info, m, std::regex("socket=([^,]+)"))) socket = {"--socket", m[1].str()};
  std::vector<std::string> encode{"munge", "--no-input"};
  encode.insert(encode.end(), socket.begin(), socket.end());
  CommandOutput credential = run_for_output(encode, seconds(5));
  if (!credential.ok()) return "munge cannot make a credential: " + base::first_line(credential.output);
  std::vector<std::string> decode{"unmunge"};
  decode.insert(decode.end(), socket.begin(), socket.end());
  CommandOutput decoded = run_for_output(decode, seconds(5), credential.output);
  if (!decoded.ok()) return "unmunge refused this host's own credential: " + base::first_line(decoded.output);
  return "ok";
}

const std::vector<std::string> kKeys = {"host", "slipway_version", "slurm_release", "plugstack", "plugstack_problems",
                                        "slipway_lines", "plugin_line", "plugin_path", "plugin_error",
                                        "plugin_release", "plugin_args_error", "munge"};

std::string* field(HostFacts& f, const std::string& key) {
  if (key == "host") return &f.host;
  if (key == "slipway_version") return &f.slipway_version;
  if (key == "slurm_release") return &f.slurm_release;
  if (key == "plugstack") return &f.plugstack;
  if (key == "plugstack_problems") return &f.plugstack_problems;
  if (key == "plugin_line") return &f.plugin_line;
  if (key == "plugin_path") return &f.plugin_path;
  if (key == "plugin_error") return &f.plugin_error;
  if (key == "plugin_release") return &f.plugin_release;
  if (key == "plugin_args_error") return &f.plugin_args_error;
  if (key == "munge") return &f.munge;
  return nullptr;
}

}  // namespace

std::string munge_status() { return check_munge(config_value(slurm_conf_as_config(), "AuthInfo")); }

HostFacts gather_host_facts() {
  HostFacts f;
  f.host = base::this_host_name();
  f.slipway_version = SLIPWAY_VERSION;
  CommandOutput version = run_for_output({"srun", "--version"}, seconds(10));
  std::smatch m;
  if (version.ok() && std::regex_search(version.output, m, std::regex("slurm[-a-z]* ([0-9]+)\\.([0-9]+)"))) {
    f.slurm_release = m[1].str() + "." + (m[2].str().size() == 1 ? "0" + m[2].str() : m[2].str());
  }
  CommandOutput config = run_for_output({"scontrol", "show", "config"}, seconds(10));
  std::string text = config.ok() ? config.output : std::string();
  if (text.empty()) text = slurm_conf_as_config();  // scontrol needs munge and slurmctld
  f.plugstack = config_value(text, "PlugStackConfig");
  if (f.plugstack.empty()) {
    const char* conf = std::getenv("SLURM_CONF");
    f.plugstack = conf && *conf ? (std::filesystem::path(conf).parent_path() / "plugstack.conf").string()
                                : std::string("/etc/slurm/plugstack.conf");
  }
  const PlugstackReading reading = read_plugstack(f.plugstack);
  for (const std::string& p : reading.problems) {
    f.plugstack_problems += (f.plugstack_problems.empty() ? "" : "; ") + p;
  }
  const std::vector<PlugstackEntry> entries = slipway_entries(reading);
  f.slipway_lines = static_cast<int>(entries.size());
  if (!entries.empty()) {
    const PlugstackEntry& e = entries.front();
    f.plugin_line = e.file + ":" + std::to_string(e.line) + " " + (e.required ? "required " : "optional ") + e.path;
    for (const std::string& a : e.args) f.plugin_line += " " + a;
    f.plugin_path = e.path;
    if (!e.path.empty() && e.path.front() != '/') {
      f.plugin_path = (std::filesystem::path(config_value(text, "PluginDir")) / e.path).string();
    }
    std::uint32_t built_for = 0;
    if (::access(f.plugin_path.c_str(), R_OK) != 0) {
      f.plugin_error = f.plugin_path + " is missing or unreadable";
    } else if (auto v = elf_u32_symbol(f.plugin_path, "plugin_version", f.plugin_error)) {
      built_for = *v;
      f.plugin_release = slurm_release_of(built_for);
    }
    f.plugin_args_error = spank::parse_plugin_args(e.args).error;
  }
  f.munge = check_munge(config_value(text, "AuthInfo"));
  return f;
}

std::string facts_to_text(const HostFacts& facts) {
  HostFacts copy = facts;
  std::string text;
  for (const std::string& key : kKeys) {
    std::string value = key == "slipway_lines" ? std::to_string(facts.slipway_lines) : *field(copy, key);
    for (char& c : value) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    text += key + "=" + value + "\n";
  }
  return text;
}

std::optional<HostFacts> facts_from_text(std::string_view text, std::string& error) {
  if (text.size() > 65536) {
    error = "a host report larger than 64 KiB";
    return std::nullopt;
  }
  HostFacts f;
  int lines = 0;
  bool has_host = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (++lines > 64) {
      error = "a host report of more than 64 lines";
      return std::nullopt;
    }
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;  // srun's own lines
    const std::string key(line.substr(0, eq));
    const std::string value(line.substr(eq + 1));
    if (key == "slipway_lines") {
      f.slipway_lines = std::atoi(value.c_str());
    } else if (std::string* target = field(f, key)) {
      *target = value;
      has_host = has_host || key == "host";
    }
  }
  if (!has_host || f.host.empty()) {
    error = "no host= line in the report";
    return std::nullopt;
  }
  return f;
}

std::vector<Finding> host_findings(const HostFacts& f) {
  DoctorReport r;
  const std::string install = "install the slipway-spank package on " + f.host +
                              " (or copy slipway.so there and name it in " + f.plugstack + ")";
  if (!f.plugstack_problems.empty()) {
    r.problem(f.host, "plugstack", f.plugstack_problems, "correct the lines named in " + f.plugstack);
  }
  if (f.slipway_lines == 0) {
    r.problem(f.host, "plugin", "no slipway.so line in " + f.plugstack + " or the files it includes",
              install + "; the package's snippet is /etc/slurm/plugstack.conf.d/slipway.conf");
  } else {
    if (f.slipway_lines > 1) {
      r.problem(f.host, "plugin", std::to_string(f.slipway_lines) + " slipway.so lines in " + f.plugstack +
                    " and its includes (the first: " + f.plugin_line + ")",
                "keep one: Slurm loads each line, and the second --program option makes srun fail");
    }
    if (!f.plugin_error.empty()) {
      r.problem(f.host, "plugin", f.plugin_error + " (" + f.plugin_line + ")", install);
    } else if (!f.slurm_release.empty() && f.plugin_release != f.slurm_release) {
      r.problem(f.host, "plugin", f.plugin_path + " was built for Slurm " + f.plugin_release + " and " + f.host +
                    " runs Slurm " + f.slurm_release + ": Slurm refuses it (Incompatible plugin version)",
                "install the slipway-spank built for Slurm " + f.slurm_release + " (its version ends in +slurm" +
                    f.slurm_release + "), or rebuild slipway against this libslurm");
    } else {
      r.ok(f.host, "plugin", f.plugin_line + " (built for Slurm " + f.plugin_release + ")");
    }
    if (!f.plugin_args_error.empty()) {
      r.problem(f.host, "plugin", f.plugin_args_error + " (" + f.plugin_line + ")",
                "correct the arguments on that line");
    }
  }
  r.add(munge_findings(f.host, f.munge));
  return r.findings();
}

std::vector<Finding> munge_findings(const std::string& host, const std::string& status) {
  DoctorReport r;
  if (status == "ok") {
    r.ok(host, "munge", "a credential made here decodes");
  } else if (status == "absent") {
    r.skipped(host, "munge", "munge is not installed here (Slurm's AuthType may not need it)");
  } else {
    r.problem(host, "munge", status,
              "start munged on " + host + " (systemctl start munge) and check that its key is the cluster's");
  }
  return r.findings();
}

std::vector<Finding> compare_findings(const HostFacts& reference, const HostFacts& f) {
  DoctorReport r;
  if (f.slipway_version != reference.slipway_version) {
    r.problem(f.host, "versions", "slipway " + f.slipway_version + " here, " + reference.slipway_version + " on " +
                  reference.host,
              "install the same slipway package version on every host");
  }
  if (!reference.slurm_release.empty() && f.slurm_release != reference.slurm_release) {
    r.problem(f.host, "versions", "Slurm " + (f.slurm_release.empty() ? std::string("unknown") : f.slurm_release) +
                  " here, " + reference.slurm_release + " on " + reference.host,
              "run one Slurm release on every host, then the slipway-spank built for it");
  }
  if (!reference.plugin_path.empty() && !f.plugin_path.empty() && f.plugin_path != reference.plugin_path) {
    r.problem(f.host, "plugin", "slipway.so is " + f.plugin_path + " here, " + reference.plugin_path + " on " +
                  reference.host,
              "install slipway-spank the same way on every host (the same plugstack snippet)");
  }
  if (r.findings().empty()) {
    r.ok(f.host, "versions", "slipway " + f.slipway_version + ", Slurm " + f.slurm_release + ", as on " + reference.host);
  }
  return r.findings();
}

}  // namespace slipway::cli
