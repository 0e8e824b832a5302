// decide_handover: command line of srun/sbatch/salloc -> what to exec.
#include "slipway/core/contract.hpp"
#include "slipway/spank/handover.hpp"

#include <span>

#include "slipway/spank/argv_scan.hpp"

namespace slipway::spank {
namespace {

Handover refuse(std::string message) {
  Handover h;
  h.kind = Handover::Kind::error;
  h.message = std::move(message);
  return h;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// A topology path that cannot be mistaken for an option by slipway's parser.
std::string as_operand(const std::string& path) {
  return !path.empty() && path[0] == '-' ? "./" + path : path;
}

std::string operand_problem(Tool tool, const ArgvScan& scan) {
  if (scan.operand_is_separator) {
    return "--program cannot be combined with ':' (heterogeneous components): "
           "the topology describes every component; remove everything from ':' on";
  }
  const std::string what = quoted(*scan.operand);
  if (tool == Tool::sbatch) {
    return "sbatch --program=FILE writes the batch script itself, so it takes no script: remove " +
           what + " (if " + what +
           " is the value of another plugin's option, write it as --option=VALUE)";
  }
  return std::string(tool_name(tool)) +
         " --program=FILE runs the commands of the topology's nodes, so it takes no command: "
         "remove " +
         what + " (if " + what +
         " is the value of another plugin's option, write it as --option=VALUE)";
}

}  // namespace

Handover decide_handover(const HandoverInput& input) {
  const std::span<const std::string> args =
      input.cmdline.empty() ? std::span<const std::string>{}
                            : std::span<const std::string>(input.cmdline).subspan(1);
  const ArgvScan scan = scan_tool_argv(input.tool, args);

  if (scan.programs.empty()) {
    return Handover{};
  }
  if (scan.help_requested) {
    Handover h;
    h.kind = Handover::Kind::help;
    return h;
  }
  if (input.guard_set) {
    return refuse(std::string("--program inside a program that slipway launched (") +
                  core::env::kSpankReexec +
                  " is set): nested programs are not supported; run this srun without "
                  "--program, or unset " +
                  core::env::kSpankReexec + " if this process is not part of a slipway program");
  }
  if (scan.programs.size() > 1) {
    return refuse("--program given more than once (" + quoted(scan.programs[0]) + ", " +
                  quoted(scan.programs[1]) + "): give one topology file");
  }
  const std::string& program = scan.programs.front();
  if (program.empty()) {
    return refuse("--program needs a topology file: --program=FILE");
  }
  if (scan.missing_value) {
    return refuse("option " + quoted(*scan.missing_value) + " needs a value");
  }
  if (scan.operand) {
    return refuse(operand_problem(input.tool, scan));
  }
  if (scan.wraps_command) {
    return refuse("sbatch --program=FILE writes the batch script itself: remove --wrap");
  }
  if (input.slipway_bin.empty()) {
    return refuse("no slipway executable configured: set slipway_bin=PATH in plugstack.conf");
  }

  Handover h;
  h.kind = Handover::Kind::exec;
  switch (input.tool) {
    case Tool::srun:
    case Tool::sbatch: {
      const bool srun = input.tool == Tool::srun;
      h.argv = {input.slipway_bin, srun ? "launch" : "sbatch"};
      const std::string flag = srun ? "--srun-arg=" : "--sbatch-arg=";
      for (const auto& word : scan.passthrough) {
        h.argv.push_back(flag + word);
      }
      h.argv.push_back(as_operand(program));
      break;
    }
    case Tool::salloc:
      h.argv = {input.tool_exe.empty() ? input.cmdline.front() : input.tool_exe};
      h.argv.insert(h.argv.end(), scan.passthrough.begin(), scan.passthrough.end());
      h.argv.insert(h.argv.end(), {input.slipway_bin, "launch", as_operand(program)});
      break;
  }
  return h;
}

}  // namespace slipway::spank
