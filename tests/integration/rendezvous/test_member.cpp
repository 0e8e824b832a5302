// slipway_test_member: a real task process for the integration tests. Joins the
// rendezvous named by SLIPWAY_RDZV/SLIPWAY_TOKEN and acts out one scenario:
//   fence NODE REPLICA N BLOB_BYTES  join, publish addr/NODE/REPLICA/p, program
//                                    fence (collect), check every blob and
//                                    address, fence again, leave 0; exit 3
//                                    on fence failure
//   sleep NODE REPLICA              join, publish, print "ready", sleep
//   wait KEY TIMEOUT_MS             observer: print the key's value (exit 4 on timeout)
//   watch-stop NODE REPLICA         join, print the stop reason when pushed, leave 0
//   wrong-token NODE REPLICA        join with a corrupted secret; exit 0 if refused
//   stall NODE REPLICA              join, one round trip, print "stopping" and
//                                   SIGSTOP itself; once continued, wait 1.5 s,
//                                   one round trip more: "ok" and leave 0, or
//                                   exit 3 ("lost: WHY" when the client gave up)
// Output goes to stdout, one line per fact.
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/token.hpp"

using namespace slipway::rendezvous;
using namespace std::chrono_literals;

namespace {

std::string blob_of(std::uint32_t replica, std::size_t bytes) {
  std::string b = "blob-" + std::to_string(replica) + "-";
  while (b.size() < bytes) b.push_back(static_cast<char>('a' + (replica + b.size()) % 26));
  return b;
}

int fence(const std::string& node, std::uint32_t replica, std::uint32_t n, std::size_t bytes) {
  auto c = Client::connect_from_environment(Identity{node, replica, 0, "", 0});
  c->put("addr/" + node + "/" + std::to_string(replica) + "/p",
         "127.0.0.1:" + std::to_string(20000 + replica), Scope::task);
  const FenceResult r = c->fence("boot", MemberSet::program(), blob_of(replica, bytes), 0ms);
  if (!r.ok()) {
    std::printf("fence failed: %s\n", r.message.c_str());
    std::fflush(stdout);
    return 3;
  }
  if (r.blobs.size() != n) return 5;
  for (std::uint32_t k = 0; k < n; ++k) {
    if (r.blobs[k].node != node || r.blobs[k].replica != k || r.blobs[k].blob != blob_of(k, bytes)) return 6;
    const auto addr = c->get("addr/" + node + "/" + std::to_string(k) + "/p");
    if (addr != "127.0.0.1:" + std::to_string(20000 + k)) return 7;
  }
  // Nobody leaves (withdrawing its address) before everyone has read them.
  if (!c->fence("done", MemberSet::program(), "", 0ms, false).ok()) return 8;
  c->leave(0);
  std::printf("fence ok\n");
  return 0;
}

int sleeper(const std::string& node, std::uint32_t replica) {
  auto c = Client::connect_from_environment(Identity{node, replica, 0, "", 0});
  c->put("addr/" + node + "/" + std::to_string(replica) + "/p", "127.0.0.1:1", Scope::task);
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) ::pause();
}

int waiter(const std::string& key, int timeout_ms) {
  auto c = Client::connect_observer_from_environment();
  const auto v = c->wait_for(key, std::chrono::milliseconds(timeout_ms));
  if (!v) return 4;
  std::printf("value %s\n", v->c_str());
  return 0;
}

int watch_stop(const std::string& node, std::uint32_t replica) {
  auto c = Client::connect_from_environment(Identity{node, replica, 0, "", 0});
  std::mutex m;
  std::condition_variable cv;
  std::string reason;
  bool stopped = false;
  c->subscribe(static_cast<std::uint8_t>(EventKind::program_stopping), "", [&](const Event& e) {
    std::lock_guard lock(m);
    reason = e.reason;
    stopped = true;
    cv.notify_one();
  });
  std::printf("ready\n");
  std::fflush(stdout);
  std::unique_lock lock(m);
  cv.wait(lock, [&] { return stopped; });
  std::printf("stopping: %s\n", reason.c_str());
  lock.unlock();
  c->leave(0);
  return 0;
}

int staller(const std::string& node, std::uint32_t replica) {
  ClientOptions options;
  options.on_disconnect = [](const Error& e) {
    std::printf("lost: %s\n", e.what());
    std::fflush(stdout);
  };
  auto c = Client::connect_from_environment(Identity{node, replica, 0, "", 0}, options);
  c->get("stall/before");  // the server heard this member just now
  std::printf("stopping\n");
  std::fflush(stdout);
  ::raise(SIGSTOP);
  std::this_thread::sleep_for(1500ms);
  try {
    c->get("stall/after");
  } catch (const Error& e) {
    std::printf("error: %s\n", e.what());
    return 3;
  }
  c->leave(0);
  std::printf("ok\n");
  return 0;
}

int wrong_token(const std::string& node, std::uint32_t replica) {
  std::string token = std::getenv(slipway::core::env::kToken);
  token[0] = token[0] == '0' ? '1' : '0';
  try {
    Client::connect(std::getenv(slipway::core::env::kRendezvous), token, Identity{node, replica, 0, "", 0});
  } catch (const Error& e) {
    std::printf("refused: %s\n", e.what());
    return e.status() == Status::auth_failed ? 0 : 8;
  }
  return 9;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "fence" && argc == 6) {
      return fence(argv[2], static_cast<std::uint32_t>(std::atoi(argv[3])),
                   static_cast<std::uint32_t>(std::atoi(argv[4])), static_cast<std::size_t>(std::atoi(argv[5])));
    }
    if (mode == "sleep" && argc == 4) return sleeper(argv[2], static_cast<std::uint32_t>(std::atoi(argv[3])));
    if (mode == "wait" && argc == 4) return waiter(argv[2], std::atoi(argv[3]));
    if (mode == "watch-stop" && argc == 4) return watch_stop(argv[2], static_cast<std::uint32_t>(std::atoi(argv[3])));
    if (mode == "stall" && argc == 4) return staller(argv[2], static_cast<std::uint32_t>(std::atoi(argv[3])));
    if (mode == "wrong-token" && argc == 4) return wrong_token(argv[2], static_cast<std::uint32_t>(std::atoi(argv[3])));
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 10;
  }
  std::fprintf(stderr, "usage: slipway_test_member MODE ARGS... (see the source)\n");
  return 2;
}
