// Slurm 22.05's client options (data from src/common/slurm_opt.c: long name,
// short name, how the value is taken, which of srun/sbatch/salloc accept
// it) and getopt_long's way of resolving a long option by prefix.
#include "slipway/spank/option_table.hpp"

#include <array>

namespace slipway::spank {
namespace {

constexpr unsigned kSrun = tool_bit(Tool::srun);
constexpr unsigned kSbatch = tool_bit(Tool::sbatch);
constexpr unsigned kSalloc = tool_bit(Tool::salloc);

constexpr std::array kOptions{
    OptionSpec{"accel-bind", '\0', ArgKind::required, kSrun},
    OptionSpec{"account", 'A', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"acctg-freq", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"array", 'a', ArgKind::required, kSbatch},
    OptionSpec{"batch", '\0', ArgKind::required, kSbatch},
    OptionSpec{"bcast", '\0', ArgKind::optional, kSrun},
    OptionSpec{"bcast-exclude", '\0', ArgKind::required, kSrun},
    OptionSpec{"begin", 'b', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"bell", '\0', ArgKind::none, kSalloc},
    OptionSpec{"bb", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"bbf", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"cluster-constraint", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"chdir", 'D', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"cluster", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"clusters", 'M', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"comment", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"compress", '\0', ArgKind::optional, kSrun},
    OptionSpec{"container", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"context", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"contiguous", '\0', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"constraint", 'C', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"core-spec", 'S', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"cores-per-socket", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"cpu-bind", '\0', ArgKind::required, kSrun},
    OptionSpec{"cpu_bind", '\0', ArgKind::required, kSrun},
    OptionSpec{"cpu-freq", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"cpus-per-gpu", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"cpus-per-task", 'c', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"deadline", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"debugger-test", '\0', ArgKind::none, kSrun},
    OptionSpec{"delay-boot", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"dependency", 'd', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"disable-status", 'X', ArgKind::none, kSrun},
    OptionSpec{"distribution", 'm', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"epilog", '\0', ArgKind::required, kSrun},
    OptionSpec{"error", 'e', ArgKind::required, kSbatch | kSrun},
    OptionSpec{"exact", '\0', ArgKind::none, kSrun},
    OptionSpec{"exclude", 'x', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"exclusive", '\0', ArgKind::optional, kSalloc | kSbatch | kSrun},
    OptionSpec{"export", '\0', ArgKind::required, kSbatch | kSrun},
    OptionSpec{"export-file", '\0', ArgKind::required, kSbatch},
    OptionSpec{"extra-node-info", 'B', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"get-user-env", '\0', ArgKind::optional, kSalloc | kSbatch},
    OptionSpec{"gid", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gpu-bind", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gpu-freq", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gpus", 'G', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gpus-per-node", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gpus-per-socket", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gpus-per-task", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gres", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"gres-flags", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"help", 'h', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"het-group", '\0', ArgKind::required, kSrun},
    OptionSpec{"hint", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"hold", 'H', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"ignore-pbs", '\0', ArgKind::none, kSbatch},
    OptionSpec{"immediate", 'I', ArgKind::optional, kSalloc | kSrun},
    OptionSpec{"input", 'i', ArgKind::required, kSbatch | kSrun},
    OptionSpec{"interactive", '\0', ArgKind::none, kSrun},
    OptionSpec{"jobid", '\0', ArgKind::required, kSrun},
    OptionSpec{"job-name", 'J', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"kill-command", 'K', ArgKind::optional, kSalloc},
    OptionSpec{"kill-on-bad-exit", 'K', ArgKind::optional, kSrun},
    OptionSpec{"kill-on-invalid-dep", '\0', ArgKind::required, kSbatch},
    OptionSpec{"label", 'l', ArgKind::none, kSrun},
    OptionSpec{"licenses", 'L', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mail-type", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mail-user", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"threads", 'T', ArgKind::required, kSrun},
    OptionSpec{"mcs-label", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mem", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mem-bind", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mem-per-cpu", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mem-per-gpu", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mincpus", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"mpi", '\0', ArgKind::required, kSrun},
    OptionSpec{"msg-timeout", '\0', ArgKind::required, kSrun},
    OptionSpec{"multi-prog", '\0', ArgKind::none, kSrun},
    OptionSpec{"network", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"nice", '\0', ArgKind::optional, kSalloc | kSbatch | kSrun},
    OptionSpec{"no-allocate", 'Z', ArgKind::none, kSrun},
    OptionSpec{"no-bell", '\0', ArgKind::none, kSalloc},
    OptionSpec{"no-kill", 'k', ArgKind::optional, kSalloc | kSbatch | kSrun},
    OptionSpec{"no-shell", '\0', ArgKind::none, kSalloc},
    OptionSpec{"no-requeue", '\0', ArgKind::none, kSbatch},
    OptionSpec{"nodefile", 'F', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"nodelist", 'w', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"nodes", 'N', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"ntasks", 'n', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"ntasks-per-core", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"ntasks-per-gpu", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"ntasks-per-node", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"ntasks-per-socket", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"ntasks-per-tres", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"open-mode", '\0', ArgKind::required, kSbatch | kSrun},
    OptionSpec{"output", 'o', ArgKind::required, kSbatch | kSrun},
    OptionSpec{"overcommit", 'O', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"overlap", '\0', ArgKind::optional, kSrun},
    OptionSpec{"oversubscribe", 's', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"pack-group", '\0', ArgKind::required, kSrun},
    OptionSpec{"parsable", '\0', ArgKind::none, kSbatch},
    OptionSpec{"partition", 'p', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"power", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"prefer", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"preserve-env", 'E', ArgKind::none, kSrun},
    OptionSpec{"priority", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"profile", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"prolog", '\0', ArgKind::required, kSrun},
    OptionSpec{"propagate", '\0', ArgKind::optional, kSbatch | kSrun},
    OptionSpec{"pty", '\0', ArgKind::none, kSrun},
    OptionSpec{"qos", 'q', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"quiet", 'Q', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"quit-on-interrupt", '\0', ArgKind::none, kSrun},
    OptionSpec{"reboot", '\0', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"relative", 'r', ArgKind::required, kSrun},
    OptionSpec{"requeue", '\0', ArgKind::none, kSbatch},
    OptionSpec{"reservation", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"resv-ports", '\0', ArgKind::optional, kSrun},
    OptionSpec{"send-libs", '\0', ArgKind::optional, kSrun},
    OptionSpec{"signal", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"slurmd-debug", '\0', ArgKind::required, kSrun},
    OptionSpec{"sockets-per-node", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"spread-job", '\0', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"switches", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"task-epilog", '\0', ArgKind::required, kSrun},
    OptionSpec{"task-prolog", '\0', ArgKind::required, kSrun},
    OptionSpec{"tasks-per-node", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"test-only", '\0', ArgKind::none, kSbatch | kSrun},
    OptionSpec{"thread-spec", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"threads-per-core", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"time", 't', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"time-min", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"tmp", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"uid", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"unbuffered", 'u', ArgKind::none, kSrun},
    OptionSpec{"use-min-nodes", '\0', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"verbose", 'v', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"version", 'V', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"usage", '\0', ArgKind::none, kSalloc | kSbatch | kSrun},
    OptionSpec{"wait", 'W', ArgKind::none, kSbatch},
    OptionSpec{"wait-all-nodes", '\0', ArgKind::required, kSalloc | kSbatch},
    OptionSpec{"wait", 'W', ArgKind::required, kSrun},
    OptionSpec{"wckey", '\0', ArgKind::required, kSalloc | kSbatch | kSrun},
    OptionSpec{"whole", '\0', ArgKind::none, kSrun},
    OptionSpec{"wrap", '\0', ArgKind::required, kSbatch},
    OptionSpec{"x11", '\0', ArgKind::optional, kSalloc | kSrun},
};

bool accepts(const OptionSpec& spec, Tool tool) { return (spec.tools & tool_bit(tool)) != 0; }

}  // namespace

std::span<const OptionSpec> slurm_options() { return kOptions; }

std::optional<OptionSpec> find_long_option(Tool tool, std::string_view name,
                                           std::span<const OptionSpec> extra) {
  std::optional<OptionSpec> found;
  bool ambiguous = false;
  auto consider = [&](const OptionSpec& spec) {
    if (!accepts(spec, tool) || !spec.name.starts_with(name)) {
      return false;
    }
    if (spec.name.size() == name.size()) {
      found = spec;
      return true;  // an exact match ends the search
    }
    if (!found) {
      found = spec;
    } else if (found->kind != spec.kind) {
      ambiguous = true;
    }
    return false;
  };
  if (name.empty()) {
    return std::nullopt;
  }
  for (const auto& spec : kOptions) {
    if (consider(spec)) {
      return found;
    }
  }
  for (const auto& spec : extra) {
    if (consider(spec)) {
      return found;
    }
  }
  if (ambiguous) {
    return std::nullopt;
  }
  return found;
}

std::optional<OptionSpec> find_short_option(Tool tool, char c) {
  if (c == '\0') {
    return std::nullopt;
  }
  for (const auto& spec : kOptions) {
    if (spec.short_name == c && accepts(spec, tool)) {
      return spec;
    }
  }
  return std::nullopt;
}

std::optional<Tool> tool_from_path(std::string_view path) {
  const auto slash = path.rfind('/');
  const auto base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (base == "srun") {
    return Tool::srun;
  }
  if (base == "sbatch") {
    return Tool::sbatch;
  }
  if (base == "salloc") {
    return Tool::salloc;
  }
  return std::nullopt;
}

std::string_view tool_name(Tool tool) {
  switch (tool) {
    case Tool::srun:
      return "srun";
    case Tool::sbatch:
      return "sbatch";
    case Tool::salloc:
      return "salloc";
  }
  return "?";
}

}  // namespace slipway::spank
