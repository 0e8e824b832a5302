// The client's reading side: the reader thread, blocking callers that read
// their own reply (leader/follower), and the dispatch of replies and events.
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "client_impl.hpp"
#include "log.hpp"

namespace slipway::rendezvous {
namespace {

// Set while this thread runs reply handlers: a blocking call from one of
// them would wait for a reply only this thread can read.
thread_local bool t_dispatching = false;

// How long the reader thread stays parked after the last blocking caller
// read for itself: a run of blocking calls never has it compete.
constexpr std::int64_t kLingerNs = 2'000'000;

}  // namespace

void Client::Impl::forbid_blocking_on_reader() const {
  if (t_dispatching || std::this_thread::get_id() == reader_id.load()) {
    throw Error(Status::invalid_request,
                "a blocking rendezvous call from a completion callback would deadlock: use the *_async form");
  }
}

void Client::Impl::reader_loop() {
  pthread_setname_np(pthread_self(), "slipway-rdzv-rx");
  reader_id.store(std::this_thread::get_id());
  pollfd fds[2] = {{fd.get(), POLLIN, 0}, {wake.get(), POLLIN, 0}};
  const std::int64_t interval_ns = std::chrono::nanoseconds(heartbeat).count();
  const std::int64_t silence_ns = silence.count();
  for (;;) {
    park_while_callers_read();
    if (closing.load() || silent_too_long()) return;
    const std::int64_t now = steady_now_ns();
    const std::int64_t idle = now - last_send_ns.load(std::memory_order_relaxed);
    const std::int64_t quiet = now - last_receive_ns.load(std::memory_order_relaxed);
    const std::int64_t wait_ns =
        std::max<std::int64_t>(std::min(interval_ns - idle, silence_ns - quiet), 0);
    const int timeout_ms = static_cast<int>(wait_ns / 1000000) + 1;
    forgive_own_stall(now);
    look_due_ns = now + std::int64_t{timeout_ms} * 1000000;
    const int r = ::poll(fds, 2, timeout_ms);
    if (r < 0 && errno != EINTR) {
      fail_everything(Error(Status::connection_lost, std::string("poll: ") + std::strerror(errno)), true);
      return;
    }
    if (fds[1].revents || closing.load()) return;
    if (r > 0 && fds[0].revents) {
      // A blocking caller that reads now (leaders > 0) reads this too; this
      // thread then parks, looking at the silence, instead of waiting for
      // the socket without looking.
      std::unique_lock lock(read_mutex, std::try_to_lock);
      if (lock.owns_lock() && !read_batch()) return;
    }
    send_heartbeat_if_idle();
  }
}

void Client::Impl::park_while_callers_read() {
  std::unique_lock lock(park_mutex);
  while (!closing.load() &&
         (leaders.load() > 0 || steady_now_ns() - last_leader_ns.load() < kLingerNs)) {
    const std::int64_t parked = steady_now_ns();
    forgive_own_stall(parked);
    look_due_ns = parked + 2'000'000;
    park_cv.wait_for(lock, std::chrono::milliseconds(2));
    send_heartbeat_if_idle();
    if (silent_too_long()) return;
  }
}

void Client::Impl::forgive_own_stall(std::int64_t now) {
  if (now > look_due_ns) {
    std::int64_t seen = last_receive_ns.load(std::memory_order_relaxed);
    // A frame read meanwhile by a blocking caller wins: it is newer.
    last_receive_ns.compare_exchange_strong(seen, std::min(now, seen + (now - look_due_ns)),
                                            std::memory_order_relaxed);
  }
  look_due_ns = now;
}

bool Client::Impl::silent_too_long() {
  const std::int64_t now = steady_now_ns();
  forgive_own_stall(now);
  const std::int64_t quiet = now - last_receive_ns.load(std::memory_order_relaxed);
  if (quiet <= silence.count() || closing.load()) return false;
  fail_everything(Error(Status::connection_lost,
                        "no word from the rendezvous at " + endpoint + " for " +
                            std::to_string(quiet / 1000000) + " ms (it answers every heartbeat, " +
                            std::to_string(heartbeat.count()) +
                            " ms): this host may be cut off from the network"),
                  true);
  return true;
}

void Client::Impl::lead_reads(CallSlot& slot, std::chrono::steady_clock::time_point deadline) {
  leaders.fetch_add(1);
  struct Leave {
    Impl& impl;
    ~Leave() {
      impl.last_leader_ns.store(steady_now_ns());
      impl.leaders.fetch_sub(1);
    }
  } leave{*this};
  while (!slot.done.load(std::memory_order_acquire)) {
    std::unique_lock reading(read_mutex, std::try_to_lock);
    if (!reading.owns_lock()) {
      // Another thread reads and will complete the slot; look again soon in
      // case it stops reading before our reply arrives.
      std::unique_lock lock(slot.m);
      slot.cv.wait_for(lock, std::chrono::milliseconds(1),
                       [&] { return slot.done.load(std::memory_order_acquire); });
      if (std::chrono::steady_clock::now() >= deadline) return;
      continue;
    }
    // While this thread holds the socket the reader thread may be waiting
    // for it (woken by data before this call began), so the heartbeats are
    // this thread's to send: a reply that comes late (a loaded server) must
    // not make this member look silent.
    const long long beat_ms = std::max<long long>(1, heartbeat.count() / 2);
    while (!slot.done.load(std::memory_order_acquire)) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return;
      pollfd p{fd.get(), POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>({left.count(), 100LL, beat_ms})));
      if (r < 0 && errno != EINTR) return;
      if (r > 0 && !read_batch()) return;
      if (closing.load()) return;
      send_heartbeat_if_idle();
    }
  }
}

bool Client::Impl::read_batch() {
  const ssize_t n = ::recv(fd.get(), read_buffer.data(), read_buffer.size(), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
  if (n > 0) last_receive_ns.store(steady_now_ns(), std::memory_order_relaxed);
  if (n <= 0) {
    fail_everything(Error(Status::connection_lost,
                          "the rendezvous at " + endpoint + " closed the connection" +
                              (n < 0 ? std::string(": ") + std::strerror(errno) : std::string())),
                    !closing.load());
    return false;
  }
  std::optional<Error> failure;
  t_dispatching = true;
  const bool ok = frames.feed(std::span(read_buffer.data(), static_cast<std::size_t>(n)),
                              [&](std::span<const std::uint8_t> body) {
                                try {
                                  handle_frame(body);
                                  return true;
                                } catch (const Error& e) {
                                  failure = e;
                                  return false;
                                }
                              });
  t_dispatching = false;
  if (!ok) failure = Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent " + frames.error());
  if (failure) {
    fail_everything(*failure, true);
    return false;
  }
  flush();  // requests corked while replies were on their way
  return true;
}

void Client::Impl::handle_frame(std::span<const std::uint8_t> body) {
  std::uint32_t number = 0;
  std::span<const std::uint8_t> inner;
  const bool in_channel = wire::split_channel(body, number, inner);
  wire::Message m;
  std::string error;
  if (!wire::decode(in_channel ? inner : body, options.limits, m, error)) {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent a malformed frame: " + error);
  }
  if (!in_channel) {
    if (!body.empty() && body[0] == static_cast<std::uint8_t>(wire::Type::channel)) {
      throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent a malformed channel frame");
    }
    handle_message(std::move(m));
    return;
  }
  std::shared_ptr<Impl> target;
  {
    std::lock_guard lock(channels_mutex);
    auto it = channels.find(number);
    if (it != channels.end()) target = it->second.lock();
  }
  // A channel closed on this side meanwhile: what was on its way is dropped.
  if (target) target->handle_message(std::move(m));
  release_on_link_thread(target);
}

void Client::Impl::handle_message(wire::Message&& m) {
  if (auto* reply = std::get_if<wire::Reply>(&m)) {
    ReplyHandler handler;
    {
      std::lock_guard lock(pending_mutex);
      auto it = pending.find(reply->id);
      if (it == pending.end()) return;  // the caller gave up (timed out)
      handler = std::move(it->second.handler);
      if (it->second.quick) link().quick_in_flight.fetch_sub(1);
      pending.erase(it);
    }
    handler(std::move(*reply));
  } else if (auto* event = std::get_if<Event>(&m)) {
    dispatch_event(std::move(*event));
  } else if (std::holds_alternative<wire::Heartbeat>(m)) {
    // The server's answer to ours: it is alive (last_receive_ns is set).
  } else if (auto* w = std::get_if<wire::Welcome>(&m); w && host) {
    {
      std::lock_guard lock(welcome_mutex);
      channel_welcome = std::move(*w);
    }
    welcome_cv.notify_all();
  } else if (auto* closed = std::get_if<wire::Closed>(&m); closed && host) {
    {
      std::lock_guard lock(host->channels_mutex);
      host->channels.erase(channel);
    }
    rdzv_log()->warn("rendezvous: the rendezvous at {} closed the channel of {}: {}", endpoint,
                     identity.name(), printable(closed->reason));
    fail_everything(Error(closed->status, "the rendezvous at " + endpoint + " closed the channel of " +
                                              identity.name() + ": " + closed->reason),
                    true);
  } else {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent an unexpected message");
  }
}

}  // namespace slipway::rendezvous
