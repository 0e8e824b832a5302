// Private: the client's connection state. One reader thread receives
// replies and events and sends heartbeats when the connection is idle;
// callers send under a mutex; an event thread runs subscription callbacks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/frame_reader.hpp"
#include "slipway/rendezvous/wire.hpp"
#include "socket_fd.hpp"

namespace slipway::rendezvous {

struct Client::Impl {
  using ReplyHandler = std::function<void(wire::Reply&&)>;

  Impl(std::string endpoint_text, ClientOptions opts);
  ~Impl();

  // Connects and authenticates; joins when `member`. Throws Error.
  void open(const std::string& token, bool member);
  void shutdown();

  // Sends the request built by encode(id, out) and registers `handler` for
  // its reply. Throws Error when the connection is gone.
  template <class Encode>
  void submit(Encode&& encode, ReplyHandler handler);
  // Blocking round trip; throws Error(timeout) after `timeout`.
  template <class Encode>
  wire::Reply call(Encode&& encode, std::chrono::milliseconds timeout);
  // Throws Error(status, message) unless the reply is ok.
  static void expect_ok(const wire::Reply& r, Status also_fine = Status::ok);

  void reader_loop();
  void handle_frame(std::span<const std::uint8_t> body);
  void send_heartbeat_if_idle();
  void fail_everything(const Error& error, bool notify);
  void dispatch_event(Event&& e);
  void event_loop();
  void forbid_blocking_on_reader() const;

  std::string endpoint;
  ClientOptions options;
  Identity identity;
  bool member = false;
  std::uint64_t generation = 0;
  std::chrono::milliseconds heartbeat{1000};
  detail::Fd fd;
  detail::Fd wake;  // eventfd: tells the reader thread to stop

  std::mutex send_mutex;
  std::string send_buffer;
  std::atomic<std::int64_t> last_send_ns{0};

  std::mutex pending_mutex;
  std::uint32_t next_id = 1;
  std::unordered_map<std::uint32_t, ReplyHandler> pending;
  bool broken = false;
  std::optional<Error> broken_error;

  std::thread reader;
  std::atomic<std::thread::id> reader_id{};
  wire::FrameReader frames;
  std::vector<std::uint8_t> read_buffer;

  // Subscriptions: local callbacks, and how many use each server filter.
  struct Sub {
    std::uint8_t kinds;
    std::string prefix;
    EventCallback callback;
  };
  std::mutex subs_mutex;
  SubscriptionId next_sub = 1;
  std::map<SubscriptionId, Sub> subs;
  std::map<std::pair<std::uint8_t, std::string>, int> filters;

  std::mutex events_mutex;
  std::condition_variable events_cv;
  std::deque<Event> events;
  bool events_stop = false;
  std::thread event_thread;
};

template <class Encode>
void Client::Impl::submit(Encode&& encode, ReplyHandler handler) {
  std::uint32_t id;
  {
    std::lock_guard lock(pending_mutex);
    if (broken) throw *broken_error;
    id = next_id++;
    if (next_id == 0) next_id = 1;
    pending.emplace(id, std::move(handler));
  }
  std::lock_guard lock(send_mutex);
  send_buffer.clear();
  encode(id, send_buffer);
  if (!detail::write_all(fd.get(), send_buffer)) {
    const Error e(Status::connection_lost, "lost the connection to the rendezvous at " + endpoint +
                                               " while sending");
    {
      std::lock_guard plock(pending_mutex);
      pending.erase(id);
    }
    throw e;
  }
  last_send_ns.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
}

template <class Encode>
wire::Reply Client::Impl::call(Encode&& encode, std::chrono::milliseconds timeout) {
  forbid_blocking_on_reader();
  struct Slot {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    wire::Reply reply;
  };
  auto slot = std::make_shared<Slot>();
  submit(std::forward<Encode>(encode), [slot](wire::Reply&& r) {
    std::lock_guard lock(slot->m);
    slot->reply = std::move(r);
    slot->done = true;
    slot->cv.notify_one();
  });
  std::unique_lock lock(slot->m);
  if (!slot->cv.wait_for(lock, timeout, [&] { return slot->done; })) {
    throw Error(Status::timeout, "no reply from the rendezvous at " + endpoint + " within " +
                                     std::to_string(timeout.count()) + " ms");
  }
  return std::move(slot->reply);
}

}  // namespace slipway::rendezvous
