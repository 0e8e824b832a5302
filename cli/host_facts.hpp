// What one host says about its slipway and Slurm set-up (slipway doctor):
// gathered on the host itself, sent back as key=value lines from `slipway
// doctor --host-report` run there by srun, and judged against the host the
// doctor runs on.
//
// Contract: gather_host_facts() asks this host's tools (srun --version,
// scontrol show config, munge) with short timeouts and never throws.
// facts_to_text()/facts_from_text() round-trip; facts_from_text() reads at
// most 64 KiB and 64 lines and ignores keys it does not know.
// host_findings() and compare_findings() are pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor_report.hpp"

namespace slipway::cli {

struct HostFacts {
  std::string host;
  std::string slipway_version;
  std::string slurm_release;   // "22.05" from `srun --version`; empty: unknown
  std::string plugstack;       // the PlugStackConfig read
  std::string plugstack_problems;  // "; "-joined
  int slipway_lines = 0;       // slipway.so lines in it and its includes
  std::string plugin_line;     // "FILE:LINE optional|required PATH ARGS"
  std::string plugin_path;     // PATH, PluginDir applied
  std::string plugin_error;    // why the plugin cannot be read; empty when it can
  std::string plugin_release;  // the Slurm release it was built for ("22.05")
  std::string plugin_args_error;
  std::string munge;           // "ok", "absent" (not installed) or what failed
};

HostFacts gather_host_facts();

// Whether munge makes a credential that unmunge decodes here (the socket
// from slurm.conf's AuthInfo): "ok", "absent" or what failed; the facts'
// `munge` field. munge_findings() judges it.
std::string munge_status();
std::vector<Finding> munge_findings(const std::string& host, const std::string& status);
std::string facts_to_text(const HostFacts& facts);
std::optional<HostFacts> facts_from_text(std::string_view text, std::string& error);

// What is wrong on the host itself: plugstack, the plugin file, the Slurm
// release it was built for, its arguments, munge.
std::vector<Finding> host_findings(const HostFacts& facts);
// What differs from the reference host (where the doctor runs): slipway's
// version, the plugin's path, the Slurm release.
std::vector<Finding> compare_findings(const HostFacts& reference, const HostFacts& host);

}  // namespace slipway::cli
