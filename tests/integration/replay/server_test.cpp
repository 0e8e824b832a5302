// The replay server without a network: its periodic checkpoints (real
// threads and time), and what the next server loads from them, with the
// line it logs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <mutex>
#include <thread>

#include "server.hpp"
#include "slipway/base/scratch_dir.hpp"

using namespace slipway::replay;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {
struct Lines {
  std::mutex mutex;
  std::vector<std::string> lines;
  Server::Log log() {
    return [this](const std::string& line) {
      std::lock_guard lock(mutex);
      lines.push_back(line);
    };
  }
  bool any(const std::string& part) {
    std::lock_guard lock(mutex);
    for (const auto& line : lines) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }
};
}  // namespace

TEST_CASE("periodic checkpoints are written and the next server loads the newest") {
  slipway::base::ScratchDir scratch(slipway::base::scratch_temp_base(), "slipway-test-replay", "a replay server test");
  const ServerConfig config = parse_config(
      R"({"tables":[{"name":"t","kind":"table","max_size":100}],"checkpoint":{"every_ms":50}})");
  ServerIdentity identity{"replay", 1, 0, scratch.path()};
  const fs::path directory = fs::path(scratch.path()) / "replay" / "replay.1";
  {
    Lines lines;
    Server server(config, identity, lines.log());
    CHECK(server.checkpoint_directory() == directory);
    CHECK(lines.any("no checkpoint under " + directory.string() + ": starting empty"));
    std::thread runner([&] { server.run(); });
    for (int i = 0; i < 200 && !lines.any("checkpoint " + directory.string()); ++i) std::this_thread::sleep_for(10ms);
    server.stop();
    runner.join();
    CHECK(lines.any(": 0 items, 0 bytes of data"));
  }
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(directory)) files += entry.path().extension() == ".ckpt" ? 1 : 0;
  CHECK(files >= 1);
  CHECK(files <= 2);
  Lines again;
  identity.attempt = 1;
  Server restarted(config, identity, again.log());
  CHECK(again.any("loaded checkpoint " + directory.string() + "/checkpoint-"));
  CHECK(again.any(": 1 tables, 0 items, 0 bytes of data"));
}

TEST_CASE("outside slipway without a configured path there are no checkpoints") {
  const ServerConfig config = parse_config(R"({"tables":[{"name":"t"}]})");
  Lines lines;
  Server server(config, ServerIdentity{"replay", 0, 0, {}}, lines.log());
  CHECK_FALSE(server.checkpoint_directory());
  CHECK(lines.any("no checkpoint path"));
}
