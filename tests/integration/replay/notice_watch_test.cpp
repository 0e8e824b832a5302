// The replay shard's watch of its checkpoint notice file (NoticeWatch), with
// real threads and files: notices written as the task agent writes them
// (a temporary file renamed over the old one), once per seq, a notice there
// at start, files that are not notices, a link and a FIFO; and the server's
// checkpoint_now(), which a notice and the stop call.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "notice_watch.hpp"
#include "server.hpp"
#include "slipway/base/scratch_dir.hpp"

using namespace slipway;
using namespace slipway::replay;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

void write_notice(const fs::path& file, const std::string& text) {
  const fs::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
  }
  fs::rename(temporary, file);
}

std::string notice_json(std::uint64_t seq, const std::string& reason, bool stop = true) {
  return R"({"seq":)" + std::to_string(seq) + R"(,"reason":")" + reason +
         R"(","deadline_unix_ms":1764321234567,"stop":)" + (stop ? "true" : "false") + "}";
}

struct Seen {
  std::mutex mutex;
  std::vector<core::CheckpointNotice> notices;
  std::vector<std::string> lines;
  NoticeWatch::OnNotice on_notice() {
    return [this](const core::CheckpointNotice& notice) {
      std::lock_guard lock(mutex);
      notices.push_back(notice);
    };
  }
  NoticeWatch::Log log() {
    return [this](const std::string& line) {
      std::lock_guard lock(mutex);
      lines.push_back(line);
    };
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return notices.size();
  }
  std::size_t lines_with(const std::string& part) {
    std::lock_guard lock(mutex);
    std::size_t n = 0;
    for (const auto& line : lines) n += line.find(part) != std::string::npos ? 1 : 0;
    return n;
  }
  // Waits up to 5 s for `want` notices (or lines with `part`).
  bool wait_for(std::size_t want) {
    for (int i = 0; i < 500 && count() < want; ++i) std::this_thread::sleep_for(10ms);
    return count() >= want;
  }
  bool wait_for_line(const std::string& part) {
    for (int i = 0; i < 500 && lines_with(part) == 0; ++i) std::this_thread::sleep_for(10ms);
    return lines_with(part) > 0;
  }
};

}  // namespace

TEST_CASE("each notice is given once, in seq order, as the agent writes them") {
  base::ScratchDir scratch(base::scratch_temp_base(), "slipway-test-notice", "a notice watch test");
  const fs::path file = fs::path(scratch.path()) / "replay.0";
  Seen seen;
  NoticeWatch watch(file, seen.on_notice(), seen.log(), 10ms);
  std::this_thread::sleep_for(50ms);
  CHECK(seen.count() == 0);  // absent until the first notice
  write_notice(file, notice_json(1, "slipway checkpoint", false));
  REQUIRE(seen.wait_for(1));
  write_notice(file, notice_json(1, "slipway checkpoint", false));  // the same seq in a new file
  write_notice(file, "{\"seq\":");                                  // not a notice
  REQUIRE(seen.wait_for_line("ignoring the checkpoint notice " + file.string() + ": it is not a checkpoint notice"));
  std::this_thread::sleep_for(50ms);
  CHECK(seen.lines_with("ignoring") == 1);  // said once for that file
  write_notice(file, notice_json(2, "time limit is near (SIGUSR1)"));
  REQUIRE(seen.wait_for(2));
  std::this_thread::sleep_for(50ms);
  std::lock_guard lock(seen.mutex);
  REQUIRE(seen.notices.size() == 2);
  CHECK(seen.notices[0].seq == 1);
  CHECK_FALSE(seen.notices[0].stop);
  CHECK(seen.notices[1].seq == 2);
  CHECK(seen.notices[1].reason == "time limit is near (SIGUSR1)");
  CHECK(seen.notices[1].deadline_unix_ms == 1764321234567);
  CHECK(seen.notices[1].stop);
}

TEST_CASE("a seq counted again from 1 (a run resumed by a new job) is a new notice") {
  base::ScratchDir scratch(base::scratch_temp_base(), "slipway-test-notice", "a notice watch test");
  const fs::path file = fs::path(scratch.path()) / "replay.0";
  Seen seen;
  NoticeWatch watch(file, seen.on_notice(), seen.log(), 10ms);
  write_notice(file, notice_json(3, "the last job's"));
  REQUIRE(seen.wait_for(1));
  write_notice(file, notice_json(1, "this job's", false));
  REQUIRE(seen.wait_for(2));
  std::lock_guard lock(seen.mutex);
  CHECK(seen.notices[1].reason == "this job's");
}

TEST_CASE("a notice already there when the watch starts is given") {
  base::ScratchDir scratch(base::scratch_temp_base(), "slipway-test-notice", "a notice watch test");
  const fs::path file = fs::path(scratch.path()) / "replay.0";
  write_notice(file, notice_json(3, "preempted"));
  Seen seen;
  NoticeWatch watch(file, seen.on_notice(), seen.log(), 10ms);
  REQUIRE(seen.wait_for(1));
  std::lock_guard lock(seen.mutex);
  CHECK(seen.notices[0].seq == 3);
}

TEST_CASE("a link, a FIFO or a file too large is no notice") {
  base::ScratchDir scratch(base::scratch_temp_base(), "slipway-test-notice", "a notice watch test");
  const fs::path file = fs::path(scratch.path()) / "replay.0";
  const fs::path elsewhere = fs::path(scratch.path()) / "elsewhere";
  write_notice(elsewhere, notice_json(1, "through a link"));
  fs::create_symlink(elsewhere, file);
  Seen seen;
  NoticeWatch watch(file, seen.on_notice(), seen.log(), 10ms);
  REQUIRE(seen.wait_for_line("it is a symbolic link"));
  fs::remove(file);
  REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
  REQUIRE(seen.wait_for_line("it is not a regular file"));  // not stuck waiting for a writer
  fs::remove(file);
  write_notice(file, R"({"seq":1,"reason":")" + std::string(5000, 'x') + R"(","deadline_unix_ms":1,"stop":true})");
  REQUIRE(seen.wait_for_line("it is larger than 4096 bytes"));
  CHECK(seen.count() == 0);
  write_notice(file, notice_json(1, "a good one after them"));
  CHECK(seen.wait_for(1));
}

TEST_CASE("checkpoint_now writes a checkpoint and says what it holds, also after stop") {
  base::ScratchDir scratch(base::scratch_temp_base(), "slipway-test-notice", "a notice watch test");
  const ServerConfig config = parse_config(R"({"tables":[{"name":"t","kind":"table","max_size":100}]})");
  Seen seen;
  Server server(config, ServerIdentity{"replay", 0, 0, scratch.path()}, seen.log());
  std::thread runner([&] { server.run(); });
  const CheckpointWritten first = server.checkpoint_now();
  CHECK(first.file.parent_path() == fs::path(scratch.path()) / "replay" / "replay.0");
  CHECK(fs::is_regular_file(first.file));
  CHECK(first.items == 0);
  server.stop();
  runner.join();
  const CheckpointWritten last = server.checkpoint_now();
  CHECK(last.file != first.file);
  CHECK(fs::is_regular_file(last.file));
  CHECK(seen.lines_with("checkpoint " + first.file.string()) == 0);  // its caller says it, not the server

  Server without(config, ServerIdentity{"replay", 0, 0, {}}, seen.log());
  CHECK_THROWS_WITH(without.checkpoint_now(), Catch::Contains("no checkpoint path"));
}
