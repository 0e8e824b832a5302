// Rendering the batch script of a program: #SBATCH header per component,
// then the body template with its placeholders filled in.
#include "slipway/jobscripts/batch_script.hpp"

#include <string>
#include <utility>
#include <vector>

#include "slipway/core/quantities.hpp"
#include "slipway/jobscripts/batch_components.hpp"

namespace slipway::jobscripts {
namespace {

// Characters an #SBATCH value may hold without quoting (sbatch splits the
// line at blanks and interprets quotes).
bool sbatch_safe(std::string_view value) {
  if (value.empty()) {
    return false;
  }
  for (const char c : value) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("_.,:&|()!*=+@/%-[]").find(c) != std::string_view::npos;
    if (!ok) {
      return false;
    }
  }
  return true;
}

class Writer {
 public:

  void line(const std::string& text) { out_ += text + "\n"; }
  void option(const std::string& name, const std::string& value) {
    line("#SBATCH --" + name + "=" + value);
  }
  // A placement value from the topology; remembers the first unusable one.
  void placement(const std::string& name, const std::string& value, const Component& c) {
    if (value.empty()) {
      return;
    }
    if (!sbatch_safe(value) && error_.empty()) {
      error_ = "node '" + c.nodes.front() + "': " + name + " '" + value +
               "' cannot be written in a #SBATCH line; use letters, digits and _ . , : & | ( ) ! "
               "* = + @ / % - [ ]";
    }
    option(name, value);
  }

  std::string& text() { return out_; }
  const std::string& error() const { return error_; }

 private:
  std::string out_;
  std::string error_;
};

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

// Consumes a number of 1 to 9 digits at `pos`.
bool take_number(std::string_view text, std::size_t& pos) {
  const std::size_t begin = pos;
  while (pos < text.size() && pos - begin < 10 && text[pos] >= '0' && text[pos] <= '9') ++pos;
  return pos > begin && pos - begin <= 9;
}

// INDEXES[%LIMIT]: INDEXES is N, N-M or N-M:STEP, comma-separated.
bool array_range_syntax(std::string_view range) {
  std::size_t pos = 0;
  for (;;) {
    if (!take_number(range, pos)) return false;
    if (pos < range.size() && range[pos] == '-') {
      if (!take_number(range, ++pos)) return false;
      if (pos < range.size() && range[pos] == ':' && !take_number(range, ++pos)) return false;
    }
    if (pos == range.size()) return true;
    if (range[pos] == '%') return take_number(range, ++pos) && pos == range.size();
    if (range[pos] != ',') return false;
    ++pos;
  }
}

}  // namespace

std::string array_range_error(std::string_view range) {
  if (range.empty() || range.size() > kMaxArrayRangeBytes) {
    return "the array range must be 1 to " + std::to_string(kMaxArrayRangeBytes) + " characters";
  }
  if (!array_range_syntax(range)) {
    return "the array range '" + std::string(range) +
           "' is not one sbatch accepts: give indexes like 0-9, 1,3,5, 0-20:4, optionally with "
           "%LIMIT (tasks running at once), e.g. 0-9%2";
  }
  return {};
}

std::string shell_quote(std::string_view value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

BatchScript render_batch_script(const core::Program& program, const BatchOptions& options) {
  BatchScript result;
  if (options.grace_seconds == 0 || options.grace_seconds > kMaxGraceSeconds) {
    result.error = "the grace period must be 1 to " + std::to_string(kMaxGraceSeconds) +
                   " seconds, not " + std::to_string(options.grace_seconds);
    return result;
  }
  if (!sbatch_safe(*program.name)) {
    result.error = "program name '" + *program.name +
                   "' cannot be a Slurm job name; use letters, digits, '_', '-' and '.'";
    return result;
  }
  const std::vector<Component> components = plan_components(program);
  if (components.empty()) {
    result.error = "the program has no nodes: nothing to submit";
    return result;
  }
  if (!options.array.empty()) {
    if (std::string why = array_range_error(options.array); !why.empty()) {
      result.error = why;
      return result;
    }
    if (components.size() > 1) {
      result.error = "the program needs a heterogeneous job (" + std::to_string(components.size()) +
                     " components: one per resource shape) and Slurm cannot make one a job array; "
                     "give its nodes one shape, or submit one job per run without --array";
      return result;
    }
  }
  const std::uint32_t time = program_time_minutes(program);

  Writer w;
  w.line("#!/bin/bash");
  w.line("# Batch script of the slipway program \"" + *program.name + "\", written by");
  w.line("# `slipway sbatch` from " + options.topology_path + ".");
  w.line("# Options given to sbatch on its command line override the #SBATCH lines");
  w.line("# below, in every component.");
  w.line("#");
  w.option("job-name", *program.name);
  w.option("signal", "B:USR1@" + std::to_string(options.grace_seconds));
  if (options.requeue) {
    w.line("#SBATCH --requeue");
    w.line("#SBATCH --open-mode=append");  // keep the output of every run
  } else {
    w.line("#SBATCH --no-requeue");
  }
  if (!options.array.empty()) {
    w.line("# Job array: each task runs the program as a run of its own, with");
    w.line("# SLIPWAY_ARRAY_TASK=$SLURM_ARRAY_TASK_ID in every task of it.");
    w.option("array", options.array);
  }
  for (std::size_t i = 0; i < components.size(); ++i) {
    const Component& c = components[i];
    if (i > 0) {
      w.line("#SBATCH hetjob");
    }
    w.line("# component " + std::to_string(i) + ": " + join(c.members));
    w.placement("partition", c.partition, c);
    w.placement("constraint", c.constraint, c);
    w.placement("account", c.account, c);
    w.placement("qos", c.qos, c);
    if (c.hosts > 0) {
      w.option("nodes", std::to_string(c.hosts));
    }
    w.option("ntasks", std::to_string(c.ntasks));
    w.option("cpus-per-task", std::to_string(c.cpus_per_task));
    if (c.gpus_per_task > 0) {
      w.option("gpus-per-task", std::to_string(c.gpus_per_task));
    }
    if (c.mem_per_cpu_mb > 0) {
      w.option("mem-per-cpu", core::format_memory_mb(c.mem_per_cpu_mb));
    }
    if (time > 0) {
      w.option("time", core::format_time_minutes(time));
    }
  }
  if (!w.error().empty()) {
    result.error = w.error();
    return result;
  }

  std::string body(program_body_template());
  replace_all(body, "{{SLIPWAY}}", shell_quote(options.slipway_command));
  replace_all(body, "{{TOPOLOGY}}", shell_quote(options.topology_path));
  replace_all(body, "{{PROGRAM}}", *program.name);
  replace_all(body, "{{REQUEUE}}", options.requeue ? "1" : "0");
  replace_all(body, "{{MAX_REQUEUES}}", std::to_string(options.max_requeues));
  replace_all(body, "{{GRACE}}", std::to_string(options.grace_seconds));
  w.line("");
  result.text = std::move(w.text()) + body;
  return result;
}

}  // namespace slipway::jobscripts
