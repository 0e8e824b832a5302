// `slipway doctor [--admin]`: checks that slipway can run here and now.
// For users (a login node, or inside an allocation): srun offers --program
// (the plugin is loaded), munge works, the compute hosts of the allocation
// reach this host's ports (where a program's rendezvous listens), UCX and
// its transports, the Python package, and the run root. For admins: this
// host's plugstack configuration and plugin, and every compute host's
// plugin, slipway and Slurm versions and munge, through one srun per host.
// Each problem names the host and the fix; the exit status is 0 only when
// all is well. Hidden helpers run on compute hosts: --host-report prints
// host_facts.hpp's lines; --probe ADDR:PORT connects back to the doctor.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command_output.hpp"
#include "commands.hpp"
#include "doctor_report.hpp"
#include "host_facts.hpp"
#include "option_checks.hpp"
#include "python_package.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/slurm_allocation.hpp"

namespace slipway::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
namespace fs = std::filesystem;

constexpr std::uint64_t kMinFreeBytes = 1ull << 30;  // a run root with less is a problem
constexpr std::size_t kParallelSruns = 32;

std::string self_path() {
  std::error_code ec;
  const auto path = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("slipway") : path.string();
}

// --- user checks -----------------------------------------------------------

bool check_srun_plugin(DoctorReport& r, const std::string& host) {
  CommandOutput help = run_for_output({"srun", "--help"}, seconds(20));
  if (!help.started) {
    r.skipped(host, "plugin", "srun is not installed here: only `slipway run` (this host alone) works");
    return false;
  }
  if (help.output.find("--program") != std::string::npos) {
    r.ok(host, "plugin", "srun --help offers --program (slipway.so is loaded)");
  } else if (!help.ok()) {
    r.problem(host, "plugin", "srun --help failed: " + base::first_line(help.output),
              "check that Slurm is configured here (SLURM_CONF, slurmctld reachable)");
  } else {
    r.problem(host, "plugin", "srun --help has no --program: slipway.so is not in Slurm's plugstack here",
              "ask the admin to install the slipway-spank package (then `slipway doctor --admin` checks it)");
  }
  return true;
}

void check_run_root(DoctorReport& r, const std::string& host, const std::string& root) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) {
    r.problem(host, "run-root", "cannot create " + root + ": " + ec.message(),
              "give --run-root (or SLIPWAY_RUN_ROOT) a directory you can write, on a file system every host sees");
    return;
  }
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0 || ::access(root.c_str(), W_OK | X_OK) != 0) {
    r.problem(host, "run-root", root + " is not writable by you", "chmod u+rwx " + root + ", or choose another with --run-root");
    return;
  }
  if (st.st_uid != ::geteuid()) {
    r.problem(host, "run-root", root + " belongs to uid " + std::to_string(st.st_uid) + ", not you",
              "use a run root of your own (--run-root or SLIPWAY_RUN_ROOT)");
    return;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    r.problem(host, "run-root", root + " is writable by others (mode " + std::to_string(st.st_mode & 0777) + " octal " +
                  [&] { char m[8]; std::snprintf(m, sizeof m, "%03o", st.st_mode & 0777); return std::string(m); }() + ")",
              "chmod go-w " + root);
    return;
  }
  struct statvfs vfs {};
  if (::statvfs(root.c_str(), &vfs) == 0) {
    const std::uint64_t free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (free_bytes < kMinFreeBytes || (vfs.f_files > 0 && vfs.f_favail < 1000)) {
      r.problem(host, "run-root", root + " has " + std::to_string(free_bytes >> 20) + " MiB and " +
                    std::to_string(vfs.f_favail) + " inodes free (logs, checkpoints and replay snapshots go there)",
                "free space there, or choose another file system with --run-root");
      return;
    }
    r.ok(host, "run-root", root + " is yours, private, " + std::to_string(free_bytes >> 30) + " GiB free");
  }
}

void check_python(DoctorReport& r, const std::string& host) {
  const std::string dir = python_package_dir();
  if (dir.empty()) {
    r.problem(host, "python", "slipway's Python package is not installed beside this slipway",
              "install the slipway package (it holds the Python package), or build the tree's python/");
    return;
  }
  CommandOutput imported = run_for_output(
      {"/usr/bin/python3", "-c", "import slipway, slipway.courier; print(slipway.__file__)"}, seconds(20), {},
      {"PYTHONPATH=" + dir});
  if (imported.ok()) {
    r.ok(host, "python", "/usr/bin/python3 imports slipway from " + dir);
  } else {
    r.problem(host, "python", "/usr/bin/python3 cannot import slipway from " + dir + ": " + base::first_line(imported.output),
              "install Debian's python3 and the slipway package");
  }
}

void check_ucx(DoctorReport& r, const std::string& host) {
  void* ucp = ::dlopen("libucp.so.0", RTLD_LAZY | RTLD_LOCAL);
  if (!ucp) {
    r.problem(host, "ucx", "libucp.so.0 cannot be loaded: " + std::string(::dlerror()),
              "install Debian's libucx0 (courier channels need it)");
    return;
  }
  using VersionString = const char* (*)();
  auto version = reinterpret_cast<VersionString>(::dlsym(ucp, "ucp_get_version_string"));
  const std::string text = version ? version() : "unknown";
  ::dlclose(ucp);
  CommandOutput info = run_for_output({"ucx_info", "-d"}, seconds(20));
  std::set<std::string> transports;
  std::istringstream lines(info.output);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find("Transport: ");
    if (at != std::string::npos) transports.insert(line.substr(at + 11));
  }
  std::string list;
  for (const auto& t : transports) list += (list.empty() ? "" : ", ") + t;
  if (!info.ok()) {
    r.ok(host, "ucx", "UCX " + text + " loads (install ucx-utils to list its transports)");
  } else if (!transports.count("tcp")) {
    r.problem(host, "ucx", "UCX " + text + " has no tcp transport (has: " + list + ")",
              "check UCX_TLS and UCX_NET_DEVICES in your environment; courier channels between hosts use tcp");
  } else {
    r.ok(host, "ucx", "UCX " + text + ": " + list);
  }
}

// The allocation's hosts connect back to a port this host listens on, as a
// program's tasks reach its rendezvous.
void check_ports(DoctorReport& r, const std::string& host) {
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* nodelist = std::getenv("SLURM_JOB_NODELIST");
  if (!job || !nodelist) {
    r.skipped(host, "ports", "not in an allocation: run `salloc -N2 slipway doctor` to check that compute hosts reach "
                             "this host's ports");
    return;
  }
  std::vector<std::string> hosts = launch::expand_hostlist(nodelist);
  base::UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  socklen_t len = sizeof addr;
  if (!listener || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener.get(), 128) != 0 || ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    r.problem(host, "ports", std::string("cannot listen on a port here: ") + std::strerror(errno),
              "check the local firewall and ip_local_port_range");
    return;
  }
  const int port = ntohs(addr.sin_port);
  // Where tasks reach this host, found as the controller finds it.
  const std::string first = hosts.empty() ? std::string() : hosts.front();
  std::string advertise;
  if (const char* forced = std::getenv(core::env::kAdvertiseHost); forced && *forced) {
    advertise = forced;
  } else if (auto address = base::local_address_toward(first)) {
    advertise = *address;
  } else if (auto node_addr = launch::node_address_from_scontrol(
                 run_for_output({"scontrol", "show", "node", first}, seconds(10)).output, first)) {
    advertise = base::local_address_toward(*node_addr).value_or(host);
  } else {
    advertise = host;
  }
  const std::string target = advertise + ":" + std::to_string(port);
  auto probes = std::async(std::launch::async, [&] {
    return run_for_output({"srun", "--ntasks-per-node=1", "-N", std::to_string(hosts.size()), "--kill-on-bad-exit=0",
                           "-J", "slipway-doctor", self_path(), "doctor", "--probe", target},
                          seconds(60));
  });
  std::set<std::string> reached;
  const auto deadline = std::chrono::steady_clock::now() + seconds(30);
  while (reached.size() < hosts.size() && std::chrono::steady_clock::now() < deadline) {
    pollfd p{listener.get(), POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) {
      if (probes.wait_for(milliseconds(0)) == std::future_status::ready) break;
      continue;
    }
    base::UniqueFd conn(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) continue;
    pollfd c{conn.get(), POLLIN, 0};
    char name[256] = {};
    if (::poll(&c, 1, 2000) > 0) {
      const ssize_t n = ::read(conn.get(), name, sizeof name - 1);
      if (n > 0) reached.insert(std::string(name, static_cast<std::size_t>(n)).substr(0, std::string(name).find('\n')));
    }
  }
  const CommandOutput srun = probes.get();
  std::string range = "the ephemeral ports";
  if (std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range"); in) {
    int lo = 0, hi = 0;
    if (in >> lo >> hi) range = "ports " + std::to_string(lo) + "-" + std::to_string(hi);
  }
  for (const std::string& h : hosts) {
    if (reached.count(h)) {
      r.ok(h, "ports", "reaches " + target + " (a rendezvous port of this host)");
    } else if (!srun.started || srun.output.find(h) != std::string::npos || reached.empty()) {
      r.problem(h, "ports", "did not reach " + target + " in 30 s" +
                    (srun.ok() ? std::string() : " (srun: " + base::first_line(srun.output) + ")"),
                "let the compute hosts open TCP connections to " + host + "'s " + range +
                    " (where a program's rendezvous listens; set " + std::string(core::env::kAdvertiseHost) + " if " + advertise +
                    " is not the address they should use)");
    } else {
      r.problem(h, "ports", "did not reach " + target + " in 30 s",
                "let the compute hosts open TCP connections to " + host + "'s " + range);
    }
  }
}

int run_user_doctor(const std::string& run_root) {
  DoctorReport r;
  const std::string host = base::this_host_name();
  const bool has_slurm = check_srun_plugin(r, host);
  if (has_slurm) {
    r.add(munge_findings(host, munge_status()));
    check_ports(r, host);
  }
  check_ucx(r, host);
  check_python(r, host);
  check_run_root(r, host, run_root.empty() ? launch::default_run_root() : run_root);
  r.print(stdout);
  return r.exit_code();
}

// --- admin checks ----------------------------------------------------------

int run_admin_doctor(const std::string& partition) {
  DoctorReport r;
  const HostFacts here = gather_host_facts();
  r.add(host_findings(here));
  std::vector<std::string> sinfo{"sinfo", "-h", "-N", "-r", "-o", "%N %P"};
  if (!partition.empty()) sinfo.insert(sinfo.end(), {"-p", partition});
  CommandOutput nodes = run_for_output(sinfo, seconds(30));
  if (!nodes.ok()) {
    r.problem(here.host, "srun", "sinfo failed: " + base::first_line(nodes.output),
              "run slipway doctor --admin where Slurm's commands work (a login node)");
    r.print(stdout);
    return r.exit_code();
  }
  // Each host once, with a partition it is in (srun -w needs one it is in).
  std::vector<std::string> hosts, partitions;
  std::set<std::string> seen;
  std::istringstream in(nodes.output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string h, p;
    fields >> h >> p;
    if (!p.empty() && p.back() == '*') p.pop_back();
    if (!h.empty() && seen.insert(h).second) {
      hosts.push_back(h);
      partitions.push_back(p);
    }
  }
  if (hosts.empty()) r.problem(here.host, "srun", "sinfo lists no responding compute host", "start slurmd on the compute hosts");
  // One srun per host, at most kParallelSruns at once.
  for (std::size_t first = 0; first < hosts.size(); first += kParallelSruns) {
    std::vector<std::future<CommandOutput>> runs;
    const std::size_t last = std::min(hosts.size(), first + kParallelSruns);
    for (std::size_t i = first; i < last; ++i) {
      std::vector<std::string> argv{"srun", "-N1", "-n1", "-w", hosts[i], "-J", "slipway-doctor", "--quiet"};
      if (!partitions[i].empty()) argv.insert(argv.end(), {"-p", partitions[i]});
      argv.insert(argv.end(), {self_path(), "doctor", "--host-report"});
      runs.push_back(std::async(std::launch::async, [argv] { return run_for_output(argv, seconds(120)); }));
    }
    for (std::size_t i = first; i < last; ++i) {
      const CommandOutput out = runs[i - first].get();
      std::string error;
      auto facts = out.ok() ? facts_from_text(out.output, error) : std::nullopt;
      if (!facts) {
        const std::string why = out.timed_out ? "no answer in 120 s" : base::first_line(out.output.empty() ? error : out.output);
        r.problem(hosts[i], "srun", "srun of slipway doctor there failed: " + why,
                  "check that " + self_path() + " is installed on " + hosts[i] +
                      " (the slipway package) and that jobs run there");
        continue;
      }
      r.add(host_findings(*facts));
      r.add(compare_findings(here, *facts));
    }
  }
  r.print(stdout);
  return r.exit_code();
}

// --- helpers run on compute hosts -------------------------------------------

int run_probe(const std::string& target) {
  const auto colon = target.rfind(':');
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (colon == std::string::npos ||
      ::getaddrinfo(target.substr(0, colon).c_str(), target.substr(colon + 1).c_str(), &hints, &found) != 0) {
    std::fprintf(stderr, "%s: cannot resolve %s (give HOST:PORT)\n", base::this_host_name().c_str(), target.c_str());
    return 2;
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  base::UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  ::connect(s.get(), found->ai_addr, found->ai_addrlen);
  pollfd p{s.get(), POLLOUT, 0};
  int error = 0;
  socklen_t len = sizeof error;
  if (::poll(&p, 1, 10000) <= 0 || ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
    std::fprintf(stderr, "%s: cannot reach %s: %s\n", base::this_host_name().c_str(), target.c_str(),
                 error ? std::strerror(error) : "timed out");
    return 1;
  }
  const std::string name = base::this_host_name() + "\n";
  return ::write(s.get(), name.data(), name.size()) == static_cast<ssize_t>(name.size()) ? 0 : 1;
}

}  // namespace

void register_doctor(CLI::App& app, CommandContext& ctx) {
  struct Options {
    bool admin = false;
    bool host_report = false;
    std::string probe;
    std::string partition;
    std::string run_root;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("doctor", "Check that slipway can run here, and on every compute host (--admin)");
  cmd->add_flag("--admin", o->admin,
                "Check the cluster: plugstack and slipway.so here, and on every responding compute host (one srun "
                "each) slipway.so, the slipway and Slurm versions, munge");
  cmd->add_option("-p,--partition", o->partition, "With --admin: only the hosts of this partition");
  add_run_root_option(cmd, o->run_root);
  cmd->add_flag("--host-report", o->host_report, "(run by --admin on each host) print this host's facts")
      ->group("");
  cmd->add_option("--probe", o->probe, "(run by doctor on each host) connect to HOST:PORT")->group("");
  cmd->footer(
      "Without --admin, for users on a login node or inside an allocation: srun offers --program,\n"
      "munge makes and decodes a credential, the allocation's hosts reach this host's ports (inside\n"
      "salloc only), UCX loads and has tcp, /usr/bin/python3 imports slipway, the run root is yours,\n"
      "private and has space.\n"
      "Each line: OK, PROBLEM (with the fix under it) or SKIPPED, the host, the check, what was seen.\n"
      "Exit status: 0 all is well, 1 a problem was found, 2 bad usage.");
  cmd->callback([o, &ctx] {
    if (o->host_report) {
      std::fputs(facts_to_text(gather_host_facts()).c_str(), stdout);
      ctx.exit_code = 0;
    } else if (!o->probe.empty()) {
      ctx.exit_code = run_probe(o->probe);
    } else if (o->admin) {
      ctx.exit_code = run_admin_doctor(o->partition);
    } else {
      ctx.exit_code = run_user_doctor(o->run_root);
    }
  });
}

}  // namespace slipway::cli
