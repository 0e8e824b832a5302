// The checkpoint notice's JSON (core/checkpoint_notice.hpp), and the
// topology's notice_signal key.
#include <signal.h>

#include <catch2/catch.hpp>

#include "core_test_support.hpp"
#include "slipway/core/checkpoint_notice.hpp"

using namespace slipway::core;
using slipway::core::test::parse_errors;
using slipway::core::test::parse_ok;

TEST_CASE("a checkpoint notice reads back as it was written") {
  CheckpointNotice notice{3, "the time limit is near (SIGUSR1)", 1764321234567, true};
  const std::string text = format_notice(notice);
  CHECK(text == R"j({"deadline_unix_ms":1764321234567,"reason":"the time limit is near (SIGUSR1)","seq":3,"stop":true})j");
  auto back = parse_notice(text);
  REQUIRE(back);
  CHECK(back->seq == 3);
  CHECK(back->reason == notice.reason);
  CHECK(back->deadline_unix_ms == notice.deadline_unix_ms);
  CHECK(back->stop);
}

TEST_CASE("what is no checkpoint notice reads as nothing") {
  CHECK(!parse_notice(""));
  CHECK(!parse_notice("[]"));
  CHECK(!parse_notice(R"({"seq":0,"reason":"","deadline_unix_ms":0,"stop":false})"));
  CHECK(!parse_notice(R"({"seq":-1,"reason":"","deadline_unix_ms":0,"stop":false})"));
  CHECK(!parse_notice(R"({"seq":1,"reason":7,"deadline_unix_ms":0,"stop":false})"));
  CHECK(!parse_notice(R"({"seq":1,"reason":"","stop":false})"));
  CHECK(!parse_notice(R"({"seq":1,"reason":"","deadline_unix_ms":0,"stop":"yes"})"));
  const std::string padded = R"({"seq":1,"reason":"","deadline_unix_ms":0,"stop":false})" + std::string(kMaxNoticeBytes, ' ');
  CHECK(!parse_notice(padded));
  CHECK(!parse_notice(R"({"seq":1,"reason":")" + std::string(kMaxReasonBytes + 1, 'x') +
                      R"(","deadline_unix_ms":0,"stop":false})"));
}

TEST_CASE("notice_signal names a signal, and the plan carries its number") {
  const Program program = parse_ok(R"(
[program]
name = "p"
[node.learner]
command = "learn"
notice_signal = "SIGUSR2"
)");
  CHECK(program.nodes.at(0).notice_signal.value == SIGUSR2);
  const auto errors = parse_errors(R"(
[program]
name = "p"
[node.learner]
command = "learn"
notice_signal = "USR2"
)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("SIGUSR2") != std::string::npos);
}
