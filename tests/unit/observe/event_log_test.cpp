// The event record: its JSON lines, the bounded file and reading it back.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "slipway/observe/event_log.hpp"
#include "slipway/observe/event_record.hpp"

namespace fs = std::filesystem;
using namespace slipway::observe;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/slipway-events-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
};

Event task_event(const std::string& kind, std::uint32_t replica) {
  Event e;
  e.kind = kind;
  e.node = "actor";
  e.replica = replica;
  e.attempt = 1;
  e.epoch = 2;
  e.host = "node2";
  e.cause = "killed by signal 9";
  return e;
}

}  // namespace

TEST_CASE("an event is one JSON line and reads back the same") {
  Event e = task_event("exit", 3);
  e.seq = 17;
  e.unix_ms = 1795871750471;
  e.program = "impala";
  const std::string line = to_json_line(e);
  REQUIRE(line.back() == '\n');
  REQUIRE(line.find('\n') == line.size() - 1);
  CHECK(line.find("\"time\":\"2026-11-28T") != std::string::npos);
  auto back = parse_event_line(line.substr(0, line.size() - 1));
  REQUIRE(back);
  CHECK(back->seq == 17);
  CHECK(back->node == "actor");
  CHECK(back->replica == 3u);
  CHECK(back->attempt == 1);
  CHECK(back->epoch == 2);
  CHECK(back->host == "node2");
  CHECK(back->cause == e.cause);
  CHECK(format_event(*back, false).find("actor.3") != std::string::npos);
}

TEST_CASE("a program-wide event leaves out what does not apply") {
  Event e;
  e.seq = 1;
  e.unix_ms = 1;
  e.program = "p";
  e.kind = "program_start";
  const std::string line = to_json_line(e);
  for (const char* key : {"\"node\"", "\"replica\"", "\"attempt\"", "\"epoch\"", "\"host\""}) {
    CHECK(line.find(key) == std::string::npos);
  }
}

TEST_CASE("event lines that are not the record's are refused") {
  CHECK_FALSE(parse_event_line("not json"));
  CHECK_FALSE(parse_event_line("{\"seq\":1}"));
  CHECK_FALSE(parse_event_line("[1,2]"));
  CHECK_FALSE(parse_event_line("{\"seq\":\"x\",\"unix_ms\":1,\"program\":\"p\",\"kind\":\"k\"}"));
  CHECK_FALSE(parse_event_line(std::string(kMaxEventLineBytes + 1, ' ')));
}

TEST_CASE("a cause is cut to its bound, and bad UTF-8 never throws") {
  Event e = task_event("exit", 0);
  e.cause = std::string(5000, 'x') + "\xff\xfe";
  const std::string line = to_json_line(e);
  auto back = parse_event_line(line.substr(0, line.size() - 1));
  REQUIRE(back);
  CHECK(back->cause.size() == kMaxCauseBytes);
}

TEST_CASE("the log numbers events, keeps the newest, and a resumed run goes on from its last") {
  TempDir dir;
  {
    EventLog log(events_path(dir.path), "impala", 1 << 20, 3);
    for (std::uint32_t r = 0; r < 5; ++r) log.append(task_event("start", r));
    CHECK(log.last_seq() == 5);
    REQUIRE(log.recent().size() == 3);
    CHECK(log.recent().front().seq == 3);
    CHECK(log.recent().back().program == "impala");
  }
  struct stat st{};
  REQUIRE(::stat(events_path(dir.path).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  EventLog again(events_path(dir.path), "impala");
  CHECK(again.append(task_event("resume", 0)).seq == 6);
  auto all = read_events(dir.path, 0, 100);
  REQUIRE(all.size() == 6);
  CHECK(all.back().kind == "resume");
  auto after = read_events(dir.path, 4, 100);
  REQUIRE(after.size() == 2);
  CHECK(after.front().seq == 5);
  CHECK(read_events(dir.path, 0, 2).front().seq == 5);  // the newest 2
}

TEST_CASE("the log is bounded: at its size it moves to events.jsonl.1, and readers find both") {
  TempDir dir;
  const std::uint64_t bound = 2000;
  EventLog log(events_path(dir.path), "impala", bound);
  for (std::uint32_t r = 0; r < 40; ++r) log.append(task_event("start", r));
  CHECK(fs::file_size(events_path(dir.path)) <= bound);
  CHECK(fs::file_size(events_path(dir.path) + ".1") <= bound);
  auto events = read_events(dir.path, 0, 1000);
  REQUIRE(!events.empty());
  CHECK(events.back().seq == 40);
  for (std::size_t k = 1; k < events.size(); ++k) CHECK(events[k].seq == events[k - 1].seq + 1);
  // What is left spans both files: more than one file holds.
  CHECK(events.size() * to_json_line(events.back()).size() > bound);
}

TEST_CASE("a torn last line is not read") {
  TempDir dir;
  {
    EventLog log(events_path(dir.path), "p");
    log.append(task_event("start", 0));
  }
  std::ofstream(events_path(dir.path), std::ios::app) << "{\"seq\":2,\"unix_ms\":1,";
  auto events = read_events(dir.path, 0, 10);
  REQUIRE(events.size() == 1);
  CHECK(events[0].seq == 1);
}
