// Run directories and their files, against what another process may have
// put there: the directories above the secret are made private, and
// refused when group or others may write them (or one above them); a link
// at a temporary name is replaced, never written through; a FIFO, a link
// or an oversized file is never read (nor waited on); names that would
// leave the run root are refused.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../lib/temp_dir.hpp"
#include "slipway/launch/private_directory.hpp"
#include "slipway/launch/run_counters.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/launch/run_file.hpp"

namespace fs = std::filesystem;
using namespace slipway::launch;

using slipway::test::read_all;
using slipway::test::TempDir;

namespace {

unsigned mode_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("a link planted at a file's temporary name is replaced, not written through") {
  TempDir tmp("slipway-run-dir-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "prog");
  const std::string target = tmp.path + "/attacker";
  { std::ofstream(target) << "theirs\n"; }
  REQUIRE(::symlink(target.c_str(), (run.path() + "/rendezvous.tmp").c_str()) == 0);
  run.write_contact({"127.0.0.1:1", "secret", 42});
  CHECK(read_all(target) == "theirs\n");
  CHECK(read_all(run.path() + "/rendezvous") == "endpoint 127.0.0.1:1\ntoken secret\npid 42\n");
  struct stat st{};
  REQUIRE(::lstat((run.path() + "/rendezvous").c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_FALSE(fs::exists(fs::symlink_status(run.path() + "/rendezvous.tmp")));
}

TEST_CASE("run files that are FIFOs, links or too large are not read, and never block") {
  TempDir tmp("slipway-run-dir-test");
  const std::string fifo = tmp.path + "/fifo", link = tmp.path + "/link", big = tmp.path + "/big",
                    small = tmp.path + "/small";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  { std::ofstream(small) << "0\n"; }
  { std::ofstream(big) << std::string(100, 'x'); }
  REQUIRE(::symlink(small.c_str(), link.c_str()) == 0);
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(read_run_file(fifo, 64));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  CHECK_FALSE(read_run_file(link, 64));
  CHECK_FALSE(read_run_file(big, 64));
  CHECK_FALSE(read_run_file(tmp.path + "/absent", 64));
  CHECK(read_run_file(small, 64) == "0\n");

  // The rendezvous file of a run, as `slipway runs`, `status` and `keeper` read it.
  const std::string run = tmp.path + "/run";
  fs::create_directory(run);
  REQUIRE(::mkfifo((run + "/rendezvous").c_str(), 0600) == 0);
  CHECK_FALSE(read_contact(run));
}

TEST_CASE("only plain names are looked up under the run root") {
  CHECK(is_plain_name("actor-learner"));
  CHECK(is_plain_name("prog-20261128-101010-42"));
  CHECK(is_plain_name("v1.2"));
  for (const char* bad : {"", "..", ".", ".hidden", "../x", "a/b", "/abs", "a\nb", "-x"}) {
    INFO(bad);
    CHECK_FALSE(is_plain_name(bad));
  }
  TempDir tmp("slipway-run-dir-test");
  fs::create_directories(tmp.path + "/root");
  fs::create_directories(tmp.path + "/x.latest");  // what "../x" would reach
  std::string error;
  CHECK_FALSE(find_run_directory(tmp.path + "/root", "../x", &error));
  CHECK(error.find("'../x' is neither a run directory") != std::string::npos);
}

TEST_CASE("missing directories are made with mode 0700") {
  TempDir tmp("slipway-run-dir-test");
  make_private_directory(tmp.path + "/a/b/runs", "run root");
  CHECK(mode_of(tmp.path + "/a") == 0700);
  CHECK(mode_of(tmp.path + "/a/b/runs") == 0700);
  make_private_directory(tmp.path + "/a/b/runs", "run root");  // again: fine
  make_private_subdirectory(tmp.path + "/a/b/runs", "run-1");
  CHECK(mode_of(tmp.path + "/a/b/runs/run-1") == 0700);
  CHECK_THROWS(make_private_subdirectory(tmp.path + "/a/b/runs", "run-1"));  // never one that exists
}

TEST_CASE("a directory others may write is refused, the run root or one above it") {
  TempDir tmp("slipway-run-dir-test");
  fs::create_directories(tmp.path + "/open");
  ::chmod((tmp.path + "/open").c_str(), 0777);
  CHECK_THROWS_WITH(make_private_directory(tmp.path + "/open", "run root"),
                    Catch::Contains("can be written by its group and other users (mode 0777)") &&
                        Catch::Contains("run chmod go-w " + tmp.path + "/open"));
  CHECK_THROWS_AS(make_private_directory(tmp.path + "/open/runs", "run root"), DirectoryRefused);
  CHECK_FALSE(fs::exists(tmp.path + "/open/runs"));  // nothing made under it

  fs::create_directories(tmp.path + "/group/runs");
  ::chmod((tmp.path + "/group").c_str(), 0770);
  CHECK_THROWS_WITH(check_private_directory(tmp.path + "/group/runs", "run root"),
                    Catch::Contains(tmp.path + "/group can be written by its group (mode 0770)"));

  // Sticky and world-writable above (as /tmp): fine.
  fs::create_directories(tmp.path + "/sticky");
  ::chmod((tmp.path + "/sticky").c_str(), 01777);
  make_private_directory(tmp.path + "/sticky/me/runs", "run root");
  CHECK_THROWS_AS(check_private_directory(tmp.path + "/sticky", "run root"), DirectoryRefused);
}

TEST_CASE("a resumed run directory counts its resumes, keeps its files and marks each log") {
  TempDir tmp("slipway-run-dir-test");
  auto first = RunDirectory::create(tmp.path + "/runs", "prog");
  CHECK(first.resume_count() == 0);
  first.write_file("plan.json", "{}\n");
  first.make_task_directories({"learner"});
  first.write_file("state/learner/step", "42\n");
  first.write_file("logs/learner.0.log", "before\n");
  first.write_file("notice/learner.0", "{}\n");
  first.write_exit(143);
  first.write_file("counters", slipway::launch::format_counters({{"learner.0", {2, 1}}}));

  auto again = RunDirectory::resume(first.path(), "prog");
  CHECK(again.path() == first.path());
  CHECK(again.resume_count() == 1);
  CHECK(access((first.path() + "/exit").c_str(), F_OK) != 0);
  CHECK(access((first.path() + "/notice/learner.0").c_str(), F_OK) != 0);  // not this start's
  std::ifstream step(first.path() + "/state/learner/step");
  std::string text;
  std::getline(step, text);
  CHECK(text == "42");
  std::ifstream log(first.path() + "/logs/learner.0.log");
  std::string all((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  const std::string name = std::filesystem::path(first.path()).filename().string();
  CHECK(all == "before\n----- slipway: resume 1 of run " + name + " -----\n");
  again.make_task_directories({"learner"});  // kept, not refused
  const auto counters = slipway::launch::read_counters(first.path());
  REQUIRE(counters.count("learner.0") == 1);
  CHECK(counters.at("learner.0").attempt == 2);
  CHECK(counters.at("learner.0").epoch == 1);
  CHECK(RunDirectory::resume(first.path(), "prog").resume_count() == 2);
  CHECK_THROWS(RunDirectory::resume(tmp.path, "prog"));  // no plan.json there
}

TEST_CASE("a Slurm job's run is found again by its job key") {
  TempDir tmp("slipway-run-dir-test");
  auto run = RunDirectory::for_job(tmp.path + "/runs", "prog", "1234_2");
  run.write_file("plan.json", "{}\n");
  CHECK(run.resume_count() == 0);
  auto requeued = RunDirectory::for_job(tmp.path + "/runs", "prog", "1234_2");
  CHECK(requeued.path() == run.path());
  CHECK(requeued.resume_count() == 1);
  sleep(1);  // runs are named by their start second
  auto other = RunDirectory::for_job(tmp.path + "/runs", "prog", "1234_3");
  CHECK(other.path() != run.path());
  CHECK_THROWS(RunDirectory::for_job(tmp.path + "/runs", "prog", "../x"));
}

TEST_CASE("counters files that are not what slipway writes read as nothing") {
  TempDir tmp("slipway-run-dir-test");
  auto run = RunDirectory::create(tmp.path + "/runs", "prog");
  run.write_file("counters", "task ../x 1 1\n");
  CHECK(slipway::launch::read_counters(run.path()).empty());
  run.write_file("counters", "task a.0 -1 0\n");
  CHECK(slipway::launch::read_counters(run.path()).empty());
  run.write_file("counters", "task a.0 99999999999 0\n");
  CHECK(slipway::launch::read_counters(run.path()).empty());
  run.write_file("resume", "resume x\n");
  CHECK(!slipway::launch::read_resume(run.path()));
}
