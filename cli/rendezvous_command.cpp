// `slipway rendezvous`: runs the program's rendezvous server standalone (the
// launcher normally embeds it). Prints `SLIPWAY_RDZV=host:port` on stdout
// once it accepts connections; logs on stderr; runs until SIGINT/SIGTERM
// (or, with --exit-on-stop, until a client requests program stop).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/error.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/base/process.hpp"
#include "slipway/launch/secret_file.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::cli {
namespace {

struct RendezvousArgs {
  std::string bind = "127.0.0.1";
  std::uint16_t port = 0;
  std::string advertise;
  std::string token_file;
  std::string token_out;
  unsigned heartbeat_ms = 1000;
  unsigned miss_budget = 3;
  std::vector<std::string> declares;
  bool exit_on_stop = false;
};

// Secret files: never one others can read, never written through a link.
std::string read_token_file(const std::string& path) { return launch::read_secret_file(path); }

void write_token_file(const std::string& path, const std::string& token) {
  launch::write_secret_file(path, token + "\n");
}

// The secret: --token-file, else SLIPWAY_TOKEN, else a new one written to
// --token-out. Never printed.
std::string obtain_token(const RendezvousArgs& a) {
  if (!a.token_file.empty()) return read_token_file(a.token_file);
  if (const char* env = std::getenv(core::env::kToken); env && *env) return env;
  if (!a.token_out.empty()) {
    std::string token = rendezvous::generate_token();
    write_token_file(a.token_out, token);
    return token;
  }
  throw std::invalid_argument(
      "no secret: give --token-file FILE, set SLIPWAY_TOKEN, or --token-out FILE to generate one");
}

int run_rendezvous(const RendezvousArgs& a) {
  base::disable_core_dumps();  // it holds the program's secret
  rendezvous::ServerOptions o;
  try {
    o.token = obtain_token(a);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "slipway rendezvous: %s\n", e.what());
    return 2;
  }
  o.bind_address = a.bind;
  o.port = a.port;
  o.advertise_host = a.advertise;
  o.heartbeat_interval = std::chrono::milliseconds(a.heartbeat_ms);
  o.miss_budget = a.miss_budget;
  const pid_t self = ::getpid();
  o.on_event = [&a, self](const rendezvous::Event& e) {
    if (e.kind == rendezvous::EventKind::program_stopping && a.exit_on_stop) ::kill(self, SIGUSR1);
  };

  // Block the signals before the server thread exists, then wait for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  rendezvous::Server server(o);
  for (const auto& d : a.declares) {
    const auto eq = d.find('=');
    char* end = nullptr;
    const unsigned long n = eq == std::string::npos ? 0 : std::strtoul(d.c_str() + eq + 1, &end, 10);
    if (eq == std::string::npos || eq == 0 || n == 0 || n > 0xffffffffUL || *end != '\0') {
      std::fprintf(stderr, "slipway rendezvous: --declare '%s': expected NODE=REPLICAS (e.g. actor=256)\n", d.c_str());
      return 2;
    }
    server.declare(d.substr(0, eq), static_cast<std::uint32_t>(n));
  }
  server.start();
  std::printf("SLIPWAY_RDZV=%s\n", server.endpoint().c_str());
  std::fflush(stdout);

  int sig = 0;
  while (sigwait(&signals, &sig) != 0) {
  }
  std::fprintf(stderr, "slipway rendezvous: %s, stopping\n",
               sig == SIGUSR1 ? "program stop requested" : strsignal(sig));
  server.stop();
  return 0;
}

}  // namespace

void register_rendezvous(CLI::App& app, CommandContext& ctx) {
  auto a = std::make_shared<RendezvousArgs>();
  auto* cmd = app.add_subcommand("rendezvous", "Run a program's rendezvous server standalone");
  cmd->add_option("--bind", a->bind, "Address to listen on: 127.0.0.1 (default), 0.0.0.0 or :: for clusters");
  cmd->add_option("--port", a->port, "TCP port (default 0: any free port)");
  cmd->add_option("--advertise", a->advertise, "Host to print in SLIPWAY_RDZV (default: the bind address, or this host's name)");
  cmd->add_option("--token-file", a->token_file, "Read the program's secret from FILE (else SLIPWAY_TOKEN)");
  cmd->add_option("--token-out", a->token_out, "Generate a secret and write it to FILE (mode 0600)");
  cmd->add_option("--heartbeat-ms", a->heartbeat_ms, "Heartbeat interval clients must keep (default 1000)")
      ->check(CLI::Range(10u, 3600000u));
  cmd->add_option("--miss-budget", a->miss_budget, "Heartbeats a member may miss before it is failed (default 3)")
      ->check(CLI::Range(1u, 1000u));
  cmd->add_option("--declare", a->declares, "NODE=REPLICAS: the program's membership, for program-wide fences");
  cmd->add_flag("--exit-on-stop", a->exit_on_stop, "Exit when a client requests program stop");
  cmd->footer(
      "Prints SLIPWAY_RDZV=host:port on stdout when ready; give tasks that and the secret\n"
      "(SLIPWAY_TOKEN). Protocol and security: docs/rendezvous.md.\n"
      "Exit status: 0 after SIGINT/SIGTERM (or stop), 1 runtime failure, 2 bad usage.");
  cmd->callback([a, &ctx] {
    try {
      ctx.exit_code = run_rendezvous(*a);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "slipway rendezvous: %s\n", e.what());
      ctx.exit_code = 1;
    }
  });
}

}  // namespace slipway::cli
