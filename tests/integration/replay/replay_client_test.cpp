// slipway_test_replay_client: a task of tests/integration/replay's
// topologies that drives a real slipway-replay server (node "replay")
// through the C++ client, checks what it answers, and exits 0 when all
// held ("replay client test: ok").
//
//   slipway_test_replay_client basic     tables, queue, writer, sampler, priorities, work leases
//   slipway_test_replay_client shards    two shards: inserts spread, keys route
//                                        updates and deletes to their shard, samples
//                                        come from both
//   slipway_test_replay_client work      attempt 0 leases a job and dies holding it;
//                                        attempt 1's first call frees that lease and
//                                        gets the job back at once (not at expiry)
//   slipway_test_replay_client restart SERVER_BINARY
//                                        checkpoint, SIGKILL the server (the process
//                                        of SERVER_BINARY in this program), the
//                                        relaunched shard restores it; the calls
//                                        retry across it
//   slipway_test_replay_client stats     what the program reports while it runs:
//                                        the shard's replay/stats/replay.0 counts
//                                        this client's inserts, samples and the
//                                        wait of a parked sample, and names its
//                                        checkpoint; the agent of node "burner"
//                                        (a busy loop holding 64 MiB) puts
//                                        usage/burner.0 with growing CPU seconds
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "slipway/channels/endpoint.hpp"
#include "slipway/channels/rendezvous_directory.hpp"
#include "slipway/rendezvous/client.hpp"
#include "slipway/replay/client.hpp"

using namespace slipway;
using namespace std::chrono_literals;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  std::fflush(stdout);
  if (!ok) ++failures;
}

std::string text_of(const channels::Bytes& b) { return channels::to_string(b); }

const replay::TableInfo* table_info(const std::vector<replay::InfoReply>& info, const std::string& name) {
  for (const auto& table : info.at(0).tables) {
    if (table.name == name) return &table;
  }
  return nullptr;
}

void basic(replay::Client& rb) {
  check(rb.shards() == 1, "one shard resolved");
  // A blob into two tables: one key, stored once.
  const replay::Key key = rb.insert(channels::as_view("first"), {{"experience", 2.0}, {"uniform", 1.0}});
  auto info = rb.info();
  check(table_info(info, "experience")->size == 1 && table_info(info, "uniform")->size == 1,
        "an insert into two tables lands in both");
  check(info[0].data_bytes == 5, "its data is stored once (5 bytes)");
  const auto sampled = rb.sample("uniform", 1, 10s);  // "experience" waits for 3 items
  check(sampled.size() == 1 && sampled[0].key == key && text_of(sampled[0].data) == "first" &&
            sampled[0].priority == 1.0 && sampled[0].table_size == 1,
        "sample returns the item");

  // The rate limiter of "experience" (min_size_to_sample 3 in the config)
  // parks a sample of a fresh table; a later insert from another thread wakes it.
  rb.reset("experience");
  std::thread later([&rb] {
    std::this_thread::sleep_for(300ms);
    for (int i = 0; i < 3; ++i) rb.insert(channels::as_view("x" + std::to_string(i)), {{"experience", 1.0}});
  });
  const auto started = std::chrono::steady_clock::now();
  const auto woken = rb.sample("experience", 2, 20s);
  later.join();
  check(woken.size() == 2 && std::chrono::steady_clock::now() - started >= 250ms,
        "a sample waits for the rate limiter and is woken by inserts");
  bool timed_out = false;
  try {
    rb.sample("empty_queue", 1, 600ms);
  } catch (const replay::ReplayError& error) {
    timed_out = error.status() == replay::Status::not_ready;
  }
  check(timed_out, "a sample of an empty queue ends with not_ready at the caller's timeout");

  // Writer and sampler on a queue: FIFO, each item once.
  {
    auto writer = rb.writer("tasks", 4);
    for (int i = 0; i < 30; ++i) writer.append(channels::as_view("task" + std::to_string(i)));
    check(writer.flush().size() == 30, "the writer's 30 inserts are acknowledged");
    auto batched = rb.writer("tasks", 2, 8);
    for (int i = 30; i < 50; ++i) batched.append(channels::as_view("task" + std::to_string(i)));
    check(batched.flush().size() == 20, "a batching writer's 20 inserts are acknowledged");
  }
  auto sampler = rb.sampler("tasks", 5, 2);
  std::vector<std::string> got;
  for (int i = 0; i < 10; ++i) {
    for (const auto& item : sampler.next(10s)) got.push_back(text_of(item.data));
  }
  std::set<std::string> unique(got.begin(), got.end());
  check(got.size() == 50 && unique.size() == 50, "the sampler pops each queued item once");
  check(got.front() == "task0", "the queue is FIFO");
  // A sampler on a queue prefetches nothing: dropped after one batch, it
  // has taken out only that batch (with 4 samples in flight it took up to 20).
  {
    auto writer = rb.writer("tasks", 4, 10);
    for (int i = 0; i < 20; ++i) writer.append(channels::as_view("more" + std::to_string(i)));
    writer.flush();
    auto one_batch = rb.sampler("tasks", 5, 4);
    const auto batch = one_batch.next(10s);
    check(batch.size() == 5 && text_of(batch.front().data) == "more0", "a queue sampler's batch is the queue's head");
  }
  check(table_info(rb.info(), "tasks")->size == 15, "a dropped queue sampler took out only the batch it returned");
  check(rb.sample("tasks", 15, 10s).size() == 15, "the rest is still there");

  // Priorities and deletes (one-way), seen through a max-heap table.
  const replay::Key low = rb.insert(channels::as_view("low"), {{"heap", 1.0}});
  const replay::Key high = rb.insert(channels::as_view("high"), {{"heap", 5.0}});
  rb.update_priorities("heap", {{low, 10.0}});
  bool updated = false;
  for (int i = 0; i < 50 && !updated; ++i) {
    updated = rb.sample("heap", 1, 5s).at(0).key == low;
    if (!updated) std::this_thread::sleep_for(20ms);
  }
  check(updated, "update_priorities reaches the max-heap sampler");
  rb.remove("heap", {low, high});
  bool removed = false;
  for (int i = 0; i < 50 && !removed; ++i) {
    removed = table_info(rb.info(), "heap")->size == 0;
    if (!removed) std::this_thread::sleep_for(20ms);
  }
  check(removed, "delete removes the items");

  // Work table: lease, nack, ack, each with the lease's token.
  const replay::Key job = rb.insert(channels::as_view("job"), {{"jobs", 1.0}});
  auto leased = rb.lease("jobs", 4, 5s);
  check(leased.size() == 1 && leased[0].key == job && leased[0].times_leased == 1, "a work item is leased");
  check(rb.nack("jobs", std::vector<replay::LeaseRef>{{job, {}}}) == 0, "a nack without its token is refused");
  check(rb.nack("jobs", leased) == 1, "nack returns it");
  leased = rb.lease("jobs", 1, 5s);
  check(leased.size() == 1 && leased[0].times_leased == 2, "it is leased again");
  check(rb.ack("jobs", std::vector<replay::LeaseRef>{{job, {}}}) == 0, "an ack without its token is refused");
  check(rb.ack("jobs", leased) == 1, "ack removes it");
  check(table_info(rb.info(), "jobs")->size == 0, "the work table is empty");

  // A refusal names the table.
  bool refused = false;
  try {
    rb.insert(channels::as_view("x"), {{"no_such_table", 1.0}});
  } catch (const replay::ReplayError& error) {
    refused = error.status() == replay::Status::invalid &&
              std::string(error.what()).find("no_such_table") != std::string::npos;
  }
  check(refused, "an unknown table is refused by name");
}

// The pid of SERVER_BINARY running in this program (SLIPWAY_PROGRAM alike), 0 if none.
long server_pid(const std::string& binary) {
  namespace fs = std::filesystem;
  const char* program = std::getenv("SLIPWAY_PROGRAM");
  const std::string wanted = std::string("SLIPWAY_PROGRAM=") + (program == nullptr ? "" : program);
  std::error_code error;
  const fs::path exe = fs::canonical(binary, error);
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ignored;
    if (fs::read_symlink(entry.path() / "exe", ignored) != exe) continue;
    std::ifstream environ(entry.path() / "environ", std::ios::binary);
    std::string variable;
    while (std::getline(environ, variable, '\0')) {
      if (variable == wanted) return std::stol(name);
    }
  }
  return 0;
}

void restart(replay::Client& rb, const std::string& binary) {
  for (int i = 0; i < 20; ++i) rb.insert(channels::as_view("item" + std::to_string(i)), {{"experience", 1.0 + i}});
  const auto paths = rb.checkpoint();
  check(paths.size() == 1 && !paths[0].empty(), "checkpoint answers its path: " + (paths.empty() ? "" : paths[0]));
  const long pid = server_pid(binary);
  check(pid > 1, "the server's process is found");
  if (pid <= 1) return;
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  // The calls retry across the shard's loss and relaunch.
  std::vector<replay::InfoReply> info;
  for (int i = 0; i < 100; ++i) {
    info = rb.info();
    if (info[0].server_attempt >= 1) break;
    std::this_thread::sleep_for(100ms);
  }
  check(info[0].server_attempt == 1, "the shard was relaunched (attempt 1)");
  check(table_info(info, "experience")->size == 20, "the relaunched shard restored the 20 items");
  check(table_info(info, "experience")->counters.inserts == 20, "and the limiter's counters");
  const auto after = rb.sample("experience", 5, 10s);
  check(after.size() == 5, "sampling works after the restore");
  const replay::Key key = rb.insert(channels::as_view("new"), {{"experience", 1.0}});
  check((key & ((replay::Key{1} << 48) - 1)) > 20, "new keys continue after the restored ones");
}

void shards(replay::Client& rb) {
  check(rb.shards() == 2, "two shards resolved");
  std::vector<replay::Key> keys;
  for (int i = 0; i < 20; ++i) keys.push_back(rb.insert(channels::as_view("i" + std::to_string(i)), {{"uniform", 1.0}}));
  std::set<std::uint32_t> owners;
  for (replay::Key key : keys) owners.insert(replay::shard_of(key));
  check(owners == std::set<std::uint32_t>{0, 1}, "inserts went to both shards");
  auto info = rb.info();
  check(info.size() == 2 && info[0].shard == 0 && info[1].shard == 1, "info answers per shard");
  std::uint64_t total = 0;
  for (const auto& shard : info) total += table_info({shard}, "uniform")->size;
  check(total == 20, "the shards hold the 20 items between them");
  std::set<std::uint32_t> sampled_from;
  for (int i = 0; i < 20; ++i) {
    for (const auto& item : rb.sample("uniform", 2, 10s)) sampled_from.insert(replay::shard_of(item.key));
  }
  check(sampled_from.size() == 2, "samples come from both shards");
  rb.remove("uniform", keys);
  bool removed = false;
  for (int i = 0; i < 50 && !removed; ++i) {
    info = rb.info();
    removed = table_info({info[0]}, "uniform")->size == 0 && table_info({info[1]}, "uniform")->size == 0;
    if (!removed) std::this_thread::sleep_for(20ms);
  }
  check(removed, "deletes reach the shard of each key");
}

void work(replay::Client& rb) {
  if (rb.caller().attempt == 0) {
    const replay::Key job = rb.insert(channels::as_view("job"), {{"jobs", 1.0}});
    const auto leased = rb.lease("jobs", 1, 10s);
    check(leased.size() == 1 && leased[0].key == job, "attempt 0 leased the job");
    std::printf("attempt 0 dies holding the lease\n");
    std::fflush(stdout);
    std::_Exit(3);
  }
  const auto started = std::chrono::steady_clock::now();
  const auto leased = rb.lease("jobs", 1, 20s);  // the lease lasts 60 s
  check(leased.size() == 1 && leased[0].times_leased == 2, "attempt 1 got its predecessor's job back");
  check(std::chrono::steady_clock::now() - started < 20s, "without waiting for the lease to expire");
  check(rb.ack("jobs", leased) == 1, "and acked it");
}

// The program key `key` parsed, once `ready` holds of it (nothing after 15 s).
std::optional<nlohmann::json> wait_for_key(rendezvous::Client& rdzv, const std::string& key,
                                           const std::function<bool(const nlohmann::json&)>& ready) {
  for (int i = 0; i < 150; ++i) {
    if (const auto value = rdzv.get(key)) {
      auto document = nlohmann::json::parse(*value, nullptr, false);
      if (!document.is_discarded() && ready(document)) return document;
    }
    std::this_thread::sleep_for(100ms);
  }
  return std::nullopt;
}

const nlohmann::json* table_stats(const nlohmann::json& document, const std::string& name) {
  for (const auto& table : document.at("tables")) {
    if (table.at("name") == name) return &table;
  }
  return nullptr;
}

void stats(replay::Client& rb) {
  auto rdzv = rendezvous::Client::connect_observer_from_environment();
  // One sample parked on the limiter (min_size 3) for 300 ms, then 3 + 4
  // inserts and 1 + 4 samples in all.
  std::thread later([&rb] {
    std::this_thread::sleep_for(300ms);
    for (int i = 0; i < 3; ++i) rb.insert(channels::as_view("s" + std::to_string(i)), {{"experience", 1.0}});
  });
  check(rb.sample("experience", 1, 20s).size() == 1, "a parked sample is woken by inserts");
  later.join();
  for (int i = 0; i < 4; ++i) rb.insert(channels::as_view("t" + std::to_string(i)), {{"experience", 1.0}});
  for (int i = 0; i < 4; ++i) check(rb.sample("experience", 1, 10s).size() == 1, "a sample");
  const auto checkpoint = rb.checkpoint();
  const auto shard = wait_for_key(*rdzv, "replay/stats/replay.0", [](const nlohmann::json& document) {
    const auto* table = table_stats(document, "experience");
    return table != nullptr && (*table)["inserted_total"] == 7 && (*table)["sampled_total"] == 5 &&
           !document["last_checkpoint_unix_ms"].is_null();
  });
  check(shard.has_value(), "replay/stats/replay.0 counts 7 inserts, 5 samples and a checkpoint" +
                               (shard ? std::string() : ": " + rdzv->get("replay/stats/replay.0").value_or("(none)")));
  if (shard) {
    const auto& table = *table_stats(*shard, "experience");
    check(table["size"] == 7 && table["max_size"] == 1000, "the table's size and max_size");
    check(table["parked_inserts"] == 0 && table["parked_samples"] == 0, "nothing parked now");
    check(table["limiter_blocked_seconds_total"].get<double>() >= 0.25,
          "the parked sample's wait is counted: " + table["limiter_blocked_seconds_total"].dump());
    check(table_stats(*shard, "uniform") != nullptr && (*table_stats(*shard, "uniform"))["inserted_total"] == 0,
          "every table is reported");
  }

  // The busy task's usage grows; its 64 MiB are resident.
  const auto first = wait_for_key(*rdzv, "usage/burner.0", [](const nlohmann::json& document) {
    return document.at("cpu_seconds").get<double>() > 0.5;
  });
  check(first.has_value(), "usage/burner.0 is put: " + rdzv->get("usage/burner.0").value_or("(none)"));
  if (!first) return;
  const double cpu = (*first)["cpu_seconds"].get<double>();
  const auto later_usage = wait_for_key(*rdzv, "usage/burner.0", [cpu](const nlohmann::json& document) {
    return document.at("cpu_seconds").get<double>() >= cpu + 0.5;
  });
  check(later_usage.has_value(), "burner.0's cpu_seconds grow past " + std::to_string(cpu + 0.5) + ": " +
                                     rdzv->get("usage/burner.0").value_or("(none)"));
  if (!later_usage) return;
  const auto rss = (*later_usage)["rss_bytes"].get<std::uint64_t>();
  check(rss >= (std::uint64_t{64} << 20) && rss < (std::uint64_t{1} << 30),
        "burner.0's rss_bytes hold its 64 MiB: " + std::to_string(rss));
  check((*later_usage)["processes"] == 2, "burner.0's tree is its shell and python3");
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  check(std::abs(now_ms - (*later_usage)["unix_ms"].get<std::int64_t>()) < 15000, "the usage is recent");
  check(!checkpoint.empty(), "the checkpoint was written");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "basic";
  try {
    channels::Endpoint endpoint({}, channels::RendezvousDirectory::from_environment());
    replay::Client rb(endpoint, "replay");
    if (mode == "shards") {
      shards(rb);
    } else if (mode == "work") {
      work(rb);
    } else if (mode == "stats") {
      stats(rb);
    } else if (mode == "restart") {
      restart(rb, argc > 2 ? argv[2] : "slipway-replay");
    } else {
      basic(rb);
    }
  } catch (const std::exception& error) {
    std::printf("FAILED: %s\n", error.what());
    return 1;
  }
  if (failures > 0) return 1;
  std::printf("replay client test: ok\n");
  return 0;
}
