// The salloc line of `slipway launch` outside an allocation (see header).
#include "slipway/launch/salloc_arguments.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "slipway/launch/slurm_allocation.hpp"

namespace slipway::launch {
namespace {

using Words = std::vector<std::string>;

// The value of an option in srun's words: `--long=V`, `--long V`, `-sV` or
// `-s V` (short_name may be empty); the last one given wins, as in getopt.
std::optional<std::string> option_value(const Words& args, std::string_view long_name,
                                        std::string_view short_name) {
  std::optional<std::string> value;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    const bool has_next = i + 1 < args.size();
    if (arg == long_name || (!short_name.empty() && arg == short_name)) {
      if (has_next) value = args[++i];
    } else if (arg.size() > long_name.size() && arg.substr(0, long_name.size()) == long_name &&
               arg[long_name.size()] == '=') {
      value = std::string(arg.substr(long_name.size() + 1));
    } else if (!short_name.empty() && arg.size() > short_name.size() &&
               arg.substr(0, short_name.size()) == short_name) {
      value = std::string(arg.substr(short_name.size()));
    }
  }
  return value;
}

bool given(const Words& args, std::string_view long_name, std::string_view short_name = {}) {
  return option_value(args, long_name, short_name).has_value();
}

std::uint64_t number_or_zero(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() ? value : 0;
}

// How many hosts the user named: -N/--nodes (N, or the upper bound of
// MIN-MAX) or the hosts of -w/--nodelist (a list, not a file), whichever
// is more; 0 when neither says. Slurm judges what it cannot parse.
std::uint64_t hosts_named(const Words& args) {
  std::uint64_t hosts = 0;
  if (auto nodes = option_value(args, "--nodes", "-N")) {
    std::string_view text = *nodes;
    if (auto dash = text.find('-'); dash != std::string_view::npos) text = text.substr(dash + 1);
    hosts = number_or_zero(text);
  }
  if (auto list = option_value(args, "--nodelist", "-w"); list && list->find('/') == std::string::npos) {
    try {
      hosts = std::max<std::uint64_t>(hosts, expand_hostlist(*list).size());
    } catch (const std::invalid_argument&) {
    }
  }
  return hosts;
}

// The user's own words, plus the tasks and CPUs per task they leave out.
Words completed_user_arguments(const core::Program& program, const Words& user) {
  Words args = user;
  std::uint64_t tasks = 0;
  std::uint32_t cpus = 1;
  for (const auto& node : program.nodes) {
    tasks += node.replicas->max;
    cpus = std::max(cpus, *node.cpus);
  }
  const std::uint64_t hosts = hosts_named(user);
  const bool user_sized_tasks = given(user, "--ntasks", "-n");
  if (!user_sized_tasks && !(given(user, "--ntasks-per-node") && hosts > 0)) {
    args.push_back("--ntasks=" + std::to_string(std::max(tasks, hosts)));
  }
  if (!user_sized_tasks && !given(user, "--cpus-per-task", "-c")) {
    args.push_back("--cpus-per-task=" + std::to_string(cpus));
  }
  return args;
}

// One heterogeneous component per resource shape of the program.
Words components_of(const core::Program& program) {
  Words args;
  using Shape = std::tuple<std::string, std::uint32_t, std::uint32_t, std::uint64_t,
                           std::string, std::string, std::string, std::string>;
  std::map<Shape, std::uint32_t> tasks;  // ordered: deterministic output
  std::vector<Shape> order;
  for (const auto& node : program.nodes) {
    Shape shape{*node.partition, *node.cpus, *node.gpus, *node.mem_mb,
                *node.constraint, *node.account, *node.qos,
                node.time_minutes.value ? std::to_string(node.time_minutes.value) : ""};
    if (!tasks.count(shape)) order.push_back(shape);
    tasks[shape] += node.replicas->max;
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& [partition, cpus, gpus, mem, constraint, account, qos, minutes] = order[i];
    if (i > 0) args.push_back(":");
    if (!partition.empty()) args.push_back("--partition=" + partition);
    args.push_back("--ntasks=" + std::to_string(tasks[order[i]]));
    args.push_back("--cpus-per-task=" + std::to_string(cpus));
    if (gpus > 0) args.push_back("--gres=gpu:" + std::to_string(gpus));
    if (mem > 0) args.push_back("--mem-per-cpu=" + std::to_string((mem + cpus - 1) / cpus) + "M");
    if (!constraint.empty()) args.push_back("--constraint=" + constraint);
    if (!account.empty()) args.push_back("--account=" + account);
    if (!qos.empty()) args.push_back("--qos=" + qos);
    if (!minutes.empty()) args.push_back("--time=" + minutes);
  }
  return args;
}

}  // namespace

std::vector<std::string> salloc_arguments(const core::Program& program,
                                          const std::vector<std::string>& user_srun_args) {
  Words args = user_srun_args.empty() ? components_of(program)
                                      : completed_user_arguments(program, user_srun_args);
  args.insert(args.begin(), {"--job-name=" + *program.name, "--no-kill"});
  return args;
}

bool requests_gres(const std::vector<std::string>& salloc_args) {
  for (const auto& arg : salloc_args) {
    for (std::string_view prefix : {"--gres", "--gpu", "-G", "--cpus-per-gpu", "--mem-per-gpu", "--tres"}) {
      if (arg.rfind(prefix, 0) == 0) return true;
    }
  }
  return false;
}

}  // namespace slipway::launch
