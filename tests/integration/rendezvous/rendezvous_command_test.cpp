// `slipway rendezvous` as a real process: prints its endpoint, writes a
// fresh secret with mode 0600, serves members and exits on program stop.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <future>

#include "processes.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/token.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::test;
using namespace std::chrono_literals;

namespace {

std::string temp_path(const char* name) {
  return std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/" + name + "." +
         std::to_string(::getpid());
}

}  // namespace

TEST_CASE("slipway rendezvous serves members and exits on stop", "[rendezvous][integration][cli]") {
  const std::string token_file = temp_path("slipway-rdzv-token");
  std::remove(token_file.c_str());
  Child server = spawn({SLIPWAY_CLI, "rendezvous", "--token-out", token_file, "--declare", "w=2",
                        "--exit-on-stop", "--heartbeat-ms", "200"},
                       {{slipway::core::env::kToken, ""}});
  const std::string line = read_line(server, 30s);
  REQUIRE(line.rfind("SLIPWAY_RDZV=127.0.0.1:", 0) == 0);
  const std::string endpoint = line.substr(std::string("SLIPWAY_RDZV=").size());

  struct stat st {};
  REQUIRE(::stat(token_file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  std::string token;
  std::getline(std::ifstream(token_file), token);
  CHECK(token.size() == 64);

  auto a = Client::connect(endpoint, token, Identity{"w", 0, 0, "", 0});
  auto b = Client::connect(endpoint, token, Identity{"w", 1, 0, "", 0});
  CHECK(a->heartbeat_interval() == 200ms);
  auto fa = std::async(std::launch::async, [&] { return a->fence("boot", MemberSet::program(), "a", 30s); });
  const auto rb = b->fence("boot", MemberSet::program(), "b", 30s);
  REQUIRE(rb.ok());
  CHECK(rb.blobs.size() == 2);
  CHECK(fa.get().ok());

  auto tool = Client::connect_observer(endpoint, token);
  CHECK(tool->members().members.size() == 2);
  tool->request_stop("test is done");
  CHECK(wait_exit(server, 30s) == 0);
  std::remove(token_file.c_str());
}

TEST_CASE("slipway rendezvous without a secret is a usage error", "[rendezvous][integration][cli]") {
  Child server = spawn({SLIPWAY_CLI, "rendezvous"}, {{slipway::core::env::kToken, ""}});
  CHECK(wait_exit(server, 30s) == 2);
}

TEST_CASE("slipway rendezvous stops on SIGTERM", "[rendezvous][integration][cli]") {
  Child server = spawn({SLIPWAY_CLI, "rendezvous", "--bind", "::1"}, {{slipway::core::env::kToken, generate_token()}});
  const std::string line = read_line(server, 30s);
  REQUIRE(line.rfind("SLIPWAY_RDZV=[::1]:", 0) == 0);
  ::kill(server.pid, SIGTERM);
  CHECK(wait_exit(server, 30s) == 0);
}
