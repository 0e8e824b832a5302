// A task's usage from its process tree (node_types/exec/process_usage.hpp):
// /proc/PID/stat lines and children files as literal text, the walk over a
// fake /proc (threads, cycles, bounds, processes gone mid-walk) and the
// usage key's JSON; and ProcFiles over this process's own /proc.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_proc.hpp"
#include "slipway/exec/proc_files.hpp"
#include "slipway/exec/process_usage.hpp"

using namespace slipway::exec;
using node_types_test::FakeProc;
using node_types_test::stat_line;

TEST_CASE("parse_proc_stat reads a real stat line") {
  const std::string line =
      "32037 (cat) R 32035 32035 27508 0 -1 4194304 102 0 0 0 7 3 11 13 20 0 1 0 3205537 3133440 389 "
      "18446744073709551615 94367371489280 94367371509161 140737328912576 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";
  const auto stat = parse_proc_stat(line);
  REQUIRE(stat);
  CHECK(stat->state == 'R');
  CHECK(stat->utime == 7);
  CHECK(stat->stime == 3);
  CHECK(stat->cutime == 11);
  CHECK(stat->cstime == 13);
  CHECK(stat->num_threads == 1);
  CHECK(stat->rss_pages == 389);
}

TEST_CASE("parse_proc_stat: a command name with spaces and parentheses ends at the last ')'") {
  const auto stat = parse_proc_stat(stat_line(7, "a) (b) S 9 9 9", 'S', 100, 50, 0, 0, 4, 1000));
  REQUIRE(stat);
  CHECK(stat->state == 'S');
  CHECK(stat->utime == 100);
  CHECK(stat->stime == 50);
  CHECK(stat->num_threads == 4);
  CHECK(stat->rss_pages == 1000);
}

TEST_CASE("parse_proc_stat refuses what is no stat line") {
  CHECK_FALSE(parse_proc_stat(""));
  CHECK_FALSE(parse_proc_stat("12 (x"));
  CHECK_FALSE(parse_proc_stat("12 x) S 1 2 3"));          // no '('
  CHECK_FALSE(parse_proc_stat("12 (x) S 1 2 3 4 5 6 7"));  // too short
  CHECK(parse_proc_stat(stat_line(1, "x", 'S', 1, 1, 0, 0, 1, 1)));  // the line the next one spoils
  std::string bad = stat_line(1, "x", 'S', 1, 1, 0, 0, 1, 1);
  bad.replace(bad.find(" 1 1 0 0 20"), 4, " x 1");  // utime not a number
  CHECK_FALSE(parse_proc_stat(bad));
  CHECK_FALSE(parse_proc_stat("1 (x) SS 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 1 1 1"));  // state of two letters
}

TEST_CASE("parse_proc_stat: negative child times and rss count as 0") {
  const auto stat = parse_proc_stat(stat_line(3, "x", 'Z', 5, 6, -1, -2, 1, -3));
  REQUIRE(stat);
  CHECK(stat->cutime == 0);
  CHECK(stat->cstime == 0);
  CHECK(stat->rss_pages == 0);
}

TEST_CASE("parse_pid_list reads a children file, bounded, skipping what is no pid") {
  CHECK(parse_pid_list("", 10).empty());
  CHECK(parse_pid_list("12 34 56 \n", 10) == std::vector<pid_t>{12, 34, 56});
  CHECK(parse_pid_list("12 34 56", 2) == std::vector<pid_t>{12, 34});
  CHECK(parse_pid_list("12 x7 -3 0 99999999999 45", 10) == std::vector<pid_t>{12, 45});
  CHECK(parse_pid_list(".", 1).empty());
}

TEST_CASE("tree_usage sums the command and its descendants, their threads' children included") {
  FakeProc proc;
  // 10: a shell that waited for earlier commands (cutime, cstime); 20 its
  // child with two threads, each of which started one process (30, 40).
  proc.stats[10] = stat_line(10, "bash", 'S', 100, 20, 300, 80, 1, 1000);
  proc.stats[20] = stat_line(20, "python3", 'R', 500, 100, 0, 0, 2, 20000);
  proc.stats[30] = stat_line(30, "worker", 'R', 50, 50, 0, 0, 1, 3000);
  proc.stats[40] = stat_line(40, "worker", 'Z', 10, 0, 0, 0, 1, 0);
  proc.children_files[{10, 10}] = "20 ";
  proc.tids[20] = {20, 21};
  proc.children_files[{20, 20}] = "30";
  proc.children_files[{20, 21}] = "40 ";
  const auto usage = tree_usage(10, proc, 100, 4096);
  REQUIRE(usage);
  CHECK(usage->processes == 4);
  CHECK(usage->cpu_seconds == Approx((100 + 20 + 300 + 80 + 500 + 100 + 50 + 50 + 10) / 100.0));
  CHECK(usage->rss_bytes == std::uint64_t{24000} * 4096);
  // A single-threaded process's children file is read without listing its threads.
  CHECK(proc.children_reads == 5);
}

TEST_CASE("tree_usage: nothing when the command is gone; a descendant gone mid-walk is skipped") {
  FakeProc proc;
  CHECK_FALSE(tree_usage(10, proc, 100, 4096));
  proc.stats[10] = stat_line(10, "sh", 'S', 1, 1, 0, 0, 1, 10);
  proc.children_files[{10, 10}] = "11 12";
  proc.stats[12] = stat_line(12, "sleep", 'S', 2, 0, 0, 0, 1, 10);
  const auto usage = tree_usage(10, proc, 100, 4096);
  REQUIRE(usage);
  CHECK(usage->processes == 2);
  CHECK(usage->cpu_seconds == Approx(0.04));
}

TEST_CASE("tree_usage reads each process once, whatever the children files say") {
  FakeProc proc;
  proc.stats[10] = stat_line(10, "a", 'S', 1, 0, 0, 0, 1, 1);
  proc.stats[11] = stat_line(11, "b", 'S', 1, 0, 0, 0, 1, 1);
  proc.children_files[{10, 10}] = "11 11 10";
  proc.children_files[{11, 11}] = "10";  // a reused pid, a loop
  const auto usage = tree_usage(10, proc, 100, 4096);
  REQUIRE(usage);
  CHECK(usage->processes == 2);
  CHECK(proc.stat_reads == 2);
}

TEST_CASE("tree_usage reads at most max_processes processes and max_children_reads children files") {
  FakeProc proc;
  // A chain 1 -> 2 -> ... -> 100, and a process of 50 threads.
  for (pid_t pid = 1; pid <= 100; ++pid) {
    proc.stats[pid] = stat_line(pid, "p", 'S', 1, 0, 0, 0, 1, 1);
    proc.children_files[{pid, pid}] = std::to_string(pid + 1);
  }
  TreeLimits limits;
  limits.max_processes = 10;
  auto usage = tree_usage(1, proc, 100, 4096, limits);
  REQUIRE(usage);
  CHECK(usage->processes == 10);

  FakeProc threaded;
  threaded.stats[1] = stat_line(1, "many", 'S', 1, 0, 0, 0, 50, 1);
  for (pid_t tid = 1; tid <= 50; ++tid) threaded.tids[1].push_back(tid);
  limits = {};
  limits.max_children_reads = 7;
  usage = tree_usage(1, threaded, 100, 4096, limits);
  REQUIRE(usage);
  CHECK(threaded.children_reads == 7);
}

TEST_CASE("usage_json is the usage key's document") {
  const auto document = nlohmann::json::parse(usage_json({12.5, 123456789, 3}, 1764331200000));
  CHECK(document == nlohmann::json::parse(
                        R"({"cpu_seconds": 12.5, "rss_bytes": 123456789, "processes": 3, "unix_ms": 1764331200000})"));
}

TEST_CASE("ProcFiles reads this process's tree: a child started here is in it") {
  ProcFiles proc;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  // Threads of this process (Catch2's and ours) list their children too.
  std::thread spinning([] {  // 0.3 s of CPU, however busy the machine
    timespec used{};
    while (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used) == 0 && used.tv_sec == 0 && used.tv_nsec < 300000000) {
    }
  });
  spinning.join();
  const auto usage = tree_usage(getpid(), proc, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  REQUIRE(usage);
  CHECK(usage->processes >= 2);
  CHECK(usage->cpu_seconds >= 0.2);
  CHECK(usage->rss_bytes > 1000000);  // this test program's own resident pages
  CHECK_FALSE(proc.stat(child));       // gone once reaped
  CHECK(proc.threads(getpid(), 100).size() >= 1);
}
