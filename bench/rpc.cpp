// slipway-bench rpc: courier RPC round trips (p50, p99) at 8 B, 64 KiB and
// 1 MiB, side by side with ucx_perftest (ucp_am_lat, same UCX transport, same
// run) and a gRPC C++ unary echo (slipway-grpc-echo) on TCP loopback. The
// callee runs in a process of its own in all three.
//
//   slipway-bench rpc [--tls LIST;LIST] [--iters N] [--sizes 8,65536,1048576]
//                     [--busy-poll-us U]
//
// Each transport (default "tcp;posix,cma") is measured in three modes:
// "default" (EndpointOptions as they come: callers drive the worker while
// they wait, progress threads poll for a learnt window after activity and
// sleep in epoll when idle), "sleep" (caller_progress off, poll_limit 0:
// every wait sleeps in epoll, the defaults before caller-side progress) and
// "busypoll" (busy_poll = U us, default 200). Beside each courier figure:
// the CPU time both processes spent per round trip.
//
// Last line: rpc: perftest_ratio_8B=R grpc_speedup_8B=G ... (every size)
// for the first transport in the default mode, then the same keys suffixed
// _<transport>_<mode> for every transport and mode (the headline's too),
// e.g. perftest_ratio_8B_posix_cma_busypoll. R is courier p50 / perftest p50
// (perftest's one-way latency doubled); G is gRPC p50 / courier p50.
#if __has_include("slipway/channels/endpoint.hpp") && __has_include("slipway/base/process.hpp")

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_registry.hpp"
#include "peers.hpp"
#include "slipway/channels/endpoint.hpp"
#include "slipway/base/child.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/base/process.hpp"
#include "slipway/base/unique_fd.hpp"
#include "slipway/rendezvous/token.hpp"

namespace {

using namespace slipway;
using Clock = std::chrono::steady_clock;

struct Latency {
  double p50_us = 0;
  double p99_us = 0;
  double cpu_us = 0;  // CPU time of caller and callee per round trip (courier only)
};

// CPU time (ns) that all threads of process `pid` have run, from schedstat.
double cpu_ns(pid_t pid) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  double total = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(d)) {
      if (entry->d_name[0] == '.') continue;
      std::ifstream in(dir + "/" + entry->d_name + "/schedstat");
      double ns = 0;
      if (in >> ns) total += ns;
    }
    ::closedir(d);
  }
  return total;
}

// The modes a courier figure is measured in.
struct Mode {
  std::string name;
  bool caller_progress = true;
  int poll_limit_us = -1;  // -1: the default
  int busy_poll_us = 0;
};

Latency percentiles(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) {
    return samples[std::min(samples.size() - 1, static_cast<std::size_t>(q * samples.size()))];
  };
  return {at(0.50), at(0.99)};
}

std::string self_dir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<std::size_t>(n));
  return path.substr(0, path.rfind('/'));
}

// A child with its stdout on a pipe; `keep_stdin`: its stdin stays open (a
// server that ends when it closes), else it is closed at once. Stopped on
// destruction: its stdin closed, 5 s to end by itself, then SIGKILL.
base::Child start_child(std::vector<std::string> argv, const std::string& extra_env, bool keep_stdin) {
  base::ChildOptions options;
  options.argv = std::move(argv);
  options.env = extra_env.empty() ? base::this_environment() : base::environment_with({extra_env});
  options.terminate_on_stop = false;
  base::Child child(std::move(options));
  if (!keep_stdin) child.close_stdin();
  return child;
}

std::string to_hex(const channels::Bytes& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (auto b : bytes) {
    out += digits[std::to_integer<unsigned>(b) >> 4];
    out += digits[std::to_integer<unsigned>(b) & 15];
  }
  return out;
}

channels::Bytes from_hex(const std::string& text) {
  channels::Bytes out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoul(text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

channels::EndpointOptions bench_options(const std::string& tls, const std::string& name,
                                        const Mode& mode) {
  channels::EndpointOptions options;
  options.tls = tls;
  options.name = name;
  options.caller_progress = mode.caller_progress;
  if (mode.poll_limit_us >= 0) options.poll_limit = std::chrono::microseconds(mode.poll_limit_us);
  options.busy_poll = std::chrono::microseconds(mode.busy_poll_us);
  return options;
}

// The callee process: serves "echo" until its stdin closes.
int serve(const std::string& tls, const Mode& mode) {
  channels::Endpoint server(bench_options(tls, "bench-callee", mode));
  server.register_method("echo", [](channels::ByteView request) { return channels::to_bytes(request); });
  std::printf("address %s\n", to_hex(server.address()).c_str());
  std::fflush(stdout);
  char c;
  while (::read(0, &c, 1) > 0) {
  }
  return 0;
}

Latency measure_courier(const std::string& tls, std::size_t size, int iters, const Mode& mode) {
  base::Child callee = start_child({self_dir() + "/slipway-bench", "rpc", "--serve", tls, mode.name,
                mode.caller_progress ? "1" : "0", std::to_string(mode.poll_limit_us),
                std::to_string(mode.busy_poll_us)},
               "", true);
  auto line = callee.read_line(std::chrono::seconds(30));
  if (!line || line->rfind("address ", 0) != 0) throw std::runtime_error("the courier callee did not start");
  channels::Endpoint client(bench_options(tls, "bench-caller", mode));
  auto handle = client.connect(from_hex(line->substr(8)), "bench-callee");
  channels::Bytes request(size, std::byte{0x5a});
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(iters));
  int warmup = std::max(10, iters / 10);
  double cpu_start = 0;
  auto cpu_now = [&] { return cpu_ns(::getpid()) + cpu_ns(callee.pid()); };
  for (int i = 0; i < warmup + iters; ++i) {
    if (i == warmup) cpu_start = cpu_now();
    auto start = Clock::now();
    auto reply = handle.call("echo", request);
    auto end = Clock::now();
    if (reply.size() != size) throw std::runtime_error("courier echo returned a wrong size");
    if (i >= warmup) samples.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  double cpu = (cpu_now() - cpu_start) / 1000.0 / iters;
  Latency out = percentiles(std::move(samples));
  out.cpu_us = cpu;
  return out;
}

// ucx_perftest's "typical" latency (the -R percentile, one way) of ucp_am_lat.
std::optional<double> perftest_one_way(const std::string& tls, std::size_t size, int iters,
                                       double rank, int port) {
  std::string env = "UCX_TLS=" + tls;
  std::vector<std::string> common = {"-t", "ucp_am_lat", "-s", std::to_string(size), "-n",
                                     std::to_string(iters), "-p", std::to_string(port)};
  std::vector<std::string> server_argv = {"ucx_perftest"};
  server_argv.insert(server_argv.end(), common.begin(), common.end());
  base::Child server = start_child(server_argv, env, false);
  for (int attempt = 0; attempt < 30; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::vector<std::string> client_argv = {"ucx_perftest", "127.0.0.1"};
    client_argv.insert(client_argv.end(), common.begin(), common.end());
    client_argv.insert(client_argv.end(), {"-R", std::to_string(rank)});
    base::Child client = start_child(client_argv, env, false);
    std::optional<double> typical;
    // ucx_perftest polls; on a loaded host it can crawl: give it 2 minutes.
    auto deadline = Clock::now() + std::chrono::minutes(2);
    while (auto line = client.read_line(std::chrono::duration_cast<std::chrono::milliseconds>(
               deadline - Clock::now()))) {
      std::istringstream words(*line);
      std::string first;
      words >> first;
      if (first == "Final:") {
        double iterations = 0, lat = 0;
        words >> iterations >> lat;
        typical = lat;
      }
    }
    if (!typical && Clock::now() >= deadline) {
      client.signal(SIGKILL);
      server.signal(SIGKILL);
      return std::nullopt;
    }
    if (client.wait().success() && typical) return typical;
  }
  return std::nullopt;
}

std::optional<Latency> measure_perftest(const std::string& tls, std::size_t size, int iters,
                                        int port) {
  auto p50 = perftest_one_way(tls, size, iters, 50.0, port);
  auto p99 = perftest_one_way(tls, size, iters, 99.0, port + 1);
  if (!p50 || !p99) return std::nullopt;
  return Latency{2 * *p50, 2 * *p99};  // round trip = twice the one-way latency
}

std::optional<Latency> measure_grpc(std::size_t size, int iters) {
  const auto found = bench::find_peer("slipway-grpc-echo");
  if (!found) return std::nullopt;
  const std::string& binary = *found;
  base::Child server = start_child({binary, "serve"}, "", true);
  auto line = server.read_line(std::chrono::seconds(30));
  if (!line || line->rfind("port ", 0) != 0) return std::nullopt;
  base::Child client = start_child({binary, "ping", "127.0.0.1:" + line->substr(5), std::to_string(size),
                std::to_string(iters)},
               "", false);
  Latency out;
  auto result = client.read_line(std::chrono::minutes(10));
  if (!result || std::sscanf(result->c_str(), "p50_us=%lf p99_us=%lf", &out.p50_us, &out.p99_us) != 2) {
    return std::nullopt;
  }
  return out;
}

std::string size_label(std::size_t size) {
  if (size >= (1u << 20) && size % (1u << 20) == 0) return std::to_string(size >> 20) + "MiB";
  if (size >= 1024 && size % 1024 == 0) return std::to_string(size >> 10) + "KiB";
  return std::to_string(size) + "B";
}

std::string ratio(double numerator, double denominator) {
  if (denominator <= 0 || numerator <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", numerator / denominator);
  return buf;
}

std::string cell(const std::optional<Latency>& l) {
  if (!l) return "n/a";
  char buf[64];
  if (l->cpu_us > 0) {
    std::snprintf(buf, sizeof buf, "%.1f / %.1f (%.0f)", l->p50_us, l->p99_us, l->cpu_us);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f / %.1f", l->p50_us, l->p99_us);
  }
  return buf;
}

// "posix,cma" -> "posix_cma": a transport list as part of a key.
std::string key_of(const std::string& tls) {
  std::string out;
  for (char c : tls) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

int run(const std::vector<std::string>& args) {
  std::vector<std::string> transports = {"tcp", "posix,cma"};
  int iters = 10000;
  int busy_poll_us = 200;
  std::vector<std::size_t> sizes = {8, 64 * 1024, 1 << 20};
  std::vector<std::string> mode_names = {"default", "sleep", "busypoll"};
  if (args.size() == 6 && args[0] == "--serve") {
    return serve(args[1], Mode{args[2], args[3] == "1", std::stoi(args[4]), std::stoi(args[5])});
  }
  // The served and serving processes prove one secret to each other, as a
  // program's tasks do: the callee it spawns inherits it.
  if (!std::getenv("SLIPWAY_TOKEN")) {
    ::setenv("SLIPWAY_TOKEN", rendezvous::generate_token().c_str(), 1);
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      return args[++i];
    };
    auto list = [](const std::string& text, char sep) {
      std::vector<std::string> items;
      std::stringstream in(text);
      for (std::string item; std::getline(in, item, sep);) items.push_back(item);
      return items;
    };
    if (args[i] == "--tls") {
      transports = list(value(), ';');
    } else if (args[i] == "--iters") {
      iters = std::stoi(value());
    } else if (args[i] == "--busy-poll-us") {
      busy_poll_us = std::stoi(value());
    } else if (args[i] == "--modes") {
      mode_names = list(value(), ',');
    } else if (args[i] == "--sizes") {
      sizes.clear();
      for (const auto& item : list(value(), ',')) sizes.push_back(std::stoull(item));
    } else {
      std::fprintf(stderr, "usage: slipway-bench rpc [--tls LIST;LIST] [--iters N] "
                           "[--sizes 8,65536,...] [--busy-poll-us U] "
                           "[--modes default,sleep,busypoll]\n");
      return 2;
    }
  }
  for (const char* peer : {"slipway-grpc-echo", "ucx_perftest"}) {
    if (!bench::find_peer(peer)) {
      std::fprintf(stderr, "\n*** rpc: %s; its column reads n/a ***\n\n", bench::missing_peer_message(peer).c_str());
    }
  }
  const std::vector<Mode> all_modes = {{"default", true, -1, 0},
                                       {"sleep", false, 0, 0},
                                       {"busypoll", true, -1, busy_poll_us}};
  std::vector<Mode> modes;
  for (const auto& name : mode_names) {
    auto it = std::find_if(all_modes.begin(), all_modes.end(),
                           [&](const Mode& m) { return m.name == name; });
    if (it == all_modes.end()) throw std::invalid_argument("no mode '" + name + "' (default, sleep, busypoll)");
    modes.push_back(*it);
  }
  std::printf("rpc: round-trip latency, callee in its own process. courier = slipway courier "
              "RPC (call() of an echo method) in modes default (caller-side progress, learnt "
              "poll window, epoll when idle), sleep (every wait in epoll) and busypoll "
              "(busy_poll %d us), p50 / p99 us (CPU us of both processes per call); "
              "perftest = ucx_perftest ucp_am_lat on the same UCX_TLS (one-way latency x2); "
              "grpc = gRPC C++ unary echo on TCP loopback\n",
              busy_poll_us);
  std::printf("%-10s %-7s %6s %22s %22s %22s %16s %16s\n", "UCX_TLS", "size", "iters",
              "courier default", "courier sleep", "courier busypoll", "perftest", "grpc");
  std::map<std::size_t, std::optional<Latency>> grpc;
  std::string headline;
  std::string summary;
  int port = 13500 + static_cast<int>(::getpid() % 1000) * 8;
  for (std::size_t t = 0; t < transports.size(); ++t) {
    const std::string& tls = transports[t];
    std::map<std::string, std::string> by_mode;
    for (std::size_t size : sizes) {
      int n = size >= (1u << 20) ? std::max(100, iters / 20)
              : size >= 65536    ? std::max(200, iters / 4)
                                 : iters;
      std::vector<Latency> courier;
      std::map<std::string, std::optional<Latency>> column;  // a mode left out reads n/a
      for (const auto& mode : modes) {
        courier.push_back(measure_courier(tls, size, n, mode));
        column[mode.name] = courier.back();
      }
      auto perftest = measure_perftest(tls, size, std::min(n, 2000), port);
      port += 2;
      if (!grpc.count(size)) grpc[size] = measure_grpc(size, n);
      const auto& g = grpc[size];
      std::printf("%-10s %-7s %6d %22s %22s %22s %16s %16s\n", tls.c_str(),
                  size_label(size).c_str(), n, cell(column["default"]).c_str(),
                  cell(column["sleep"]).c_str(), cell(column["busypoll"]).c_str(), cell(perftest).c_str(), cell(g).c_str());
      std::fflush(stdout);
      std::string label = size_label(size);
      double pt = perftest ? perftest->p50_us : 0;
      double gp = g ? g->p50_us : 0;
      if (t == 0) {
        headline += " perftest_ratio_" + label + "=" + ratio(courier[0].p50_us, pt);
        headline += " grpc_speedup_" + label + "=" + ratio(gp, courier[0].p50_us);
      }
      for (std::size_t m = 0; m < modes.size(); ++m) {
        std::string suffix = "_" + key_of(tls) + "_" + modes[m].name;
        by_mode[modes[m].name] += " perftest_ratio_" + label + suffix + "=" +
                                  ratio(courier[m].p50_us, pt) + " grpc_speedup_" + label +
                                  suffix + "=" + ratio(gp, courier[m].p50_us);
      }
    }
    for (const auto& mode : modes) summary += by_mode[mode.name];
  }
  std::printf("rpc:%s%s\n", headline.c_str(), summary.c_str());
  return 0;
}

SLIPWAY_BENCHMARK("rpc", "courier RPC round trips vs ucx_perftest and gRPC (8 B, 64 KiB, 1 MiB)",
                  [](const std::vector<std::string>& args) {
                    try {
                      return run(args);
                    } catch (const std::exception& e) {
                      std::fprintf(stderr, "rpc: %s\n", e.what());
                      return 1;
                    }
                  });

}  // namespace

#endif
