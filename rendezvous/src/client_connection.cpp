// The client's connection: handshake (challenge, HMAC proof, server proof),
// the reader thread (replies, events, idle heartbeats) and shutdown.
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "client_impl.hpp"
#include "slipway/rendezvous/endpoint.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::rendezvous {
namespace {

std::int64_t now_ns() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

// Reads one whole frame during the handshake (before the reader thread runs).
wire::Message read_frame(int fd, const Limits& limits, std::uint32_t max_bytes,
                         detail::Deadline deadline, const std::string& endpoint) {
  std::uint8_t header[4];
  if (!detail::read_exact(fd, header, deadline)) {
    throw Error(errno == ETIMEDOUT ? Status::timeout : Status::connection_lost,
                "the rendezvous at " + endpoint + " did not complete the handshake: " +
                    std::strerror(errno));
  }
  const std::uint32_t len = header[0] | (header[1] << 8) | (header[2] << 16) | (std::uint32_t{header[3]} << 24);
  if (len == 0 || len > max_bytes) {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent a handshake frame of " +
                                            std::to_string(len) + " bytes: is this a slipway rendezvous?");
  }
  std::vector<std::uint8_t> body(len);
  if (!detail::read_exact(fd, body, deadline)) {
    throw Error(Status::connection_lost, "the rendezvous at " + endpoint + " closed the connection during the handshake");
  }
  wire::Message m;
  std::string error;
  if (!wire::decode(body, limits, m, error)) {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent a malformed handshake: " + error);
  }
  return m;
}

}  // namespace

Client::Impl::Impl(std::string endpoint_text, ClientOptions opts)
    : endpoint(std::move(endpoint_text)), options(std::move(opts)),
      frames(options.limits.max_frame_bytes), read_buffer(64 * 1024) {}

Client::Impl::~Impl() { shutdown(); }

void Client::Impl::open(const std::string& token, bool as_member) {
  if (token.empty()) throw Error(Status::auth_failed, "the program's secret is empty (SLIPWAY_TOKEN)");
  const Endpoint ep = parse_endpoint(endpoint);
  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  fd = detail::connect_tcp(ep.host, ep.port, deadline);
  // A server that stops reading must not wedge the reader thread forever.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(options.request_timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((options.request_timeout.count() % 1000) * 1000);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);

  const auto challenge_msg = read_frame(fd.get(), options.limits, 4096, deadline, endpoint);
  const auto* challenge = std::get_if<wire::Challenge>(&challenge_msg);
  if (!challenge) throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " did not send a challenge");
  if (challenge->version != wire::kProtocolVersion) {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " speaks protocol " +
                                            std::to_string(challenge->version) + ", this client " +
                                            std::to_string(wire::kProtocolVersion) +
                                            ": use the same slipway version everywhere");
  }
  heartbeat = std::chrono::milliseconds(std::max<std::uint32_t>(challenge->heartbeat_interval_ms, 10));

  const HmacKey key(token);
  wire::Hello hello;
  hello.role = as_member ? wire::Role::member : wire::Role::observer;
  if (as_member) hello.identity = identity;
  random_bytes(hello.client_nonce);
  hello.mac = wire::client_mac(key, challenge->server_nonce, hello);
  std::string frame;
  wire::encode(hello, frame);
  if (!detail::write_all(fd.get(), frame)) {
    throw Error(Status::connection_lost, "lost the connection to the rendezvous at " + endpoint + " during the handshake");
  }
  const auto welcome_msg = read_frame(fd.get(), options.limits, options.limits.max_frame_bytes, deadline, endpoint);
  const auto* welcome = std::get_if<wire::Welcome>(&welcome_msg);
  if (!welcome) throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " did not answer the handshake");
  if (welcome->status != Status::ok) {
    throw Error(welcome->status, "the rendezvous at " + endpoint + " refused " +
                                     (as_member ? identity.name() : std::string("this observer")) + ": " +
                                     welcome->message);
  }
  const Digest expected = wire::server_mac(key, challenge->server_nonce, hello.client_nonce);
  if (!constant_time_equal(expected, welcome->server_mac)) {
    throw Error(Status::auth_failed, "the server at " + endpoint +
                                         " does not know this program's secret: it is not this program's rendezvous");
  }
  member = as_member;
  generation = welcome->generation;
  last_send_ns.store(now_ns());

  wake = detail::Fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake) throw Error(Status::connection_lost, std::string("eventfd: ") + std::strerror(errno));
  reader = std::thread([this] { reader_loop(); });
  event_thread = std::thread([this] { event_loop(); });
}

void Client::Impl::forbid_blocking_on_reader() const {
  if (std::this_thread::get_id() == reader_id.load()) {
    throw Error(Status::invalid_request,
                "a blocking rendezvous call from a completion callback would deadlock: use the *_async form");
  }
}

void Client::Impl::reader_loop() {
  pthread_setname_np(pthread_self(), "slipway-rdzv-rx");
  reader_id.store(std::this_thread::get_id());
  pollfd fds[2] = {{fd.get(), POLLIN, 0}, {wake.get(), POLLIN, 0}};
  const std::int64_t interval_ns = std::chrono::nanoseconds(heartbeat).count();
  for (;;) {
    const std::int64_t idle = now_ns() - last_send_ns.load(std::memory_order_relaxed);
    const std::int64_t wait_ns = std::max<std::int64_t>(interval_ns - idle, 0);
    const int r = ::poll(fds, 2, static_cast<int>(wait_ns / 1000000) + 1);
    if (r < 0 && errno != EINTR) {
      fail_everything(Error(Status::connection_lost, std::string("poll: ") + std::strerror(errno)), true);
      return;
    }
    if (fds[1].revents) return;  // shutdown
    if (r > 0 && fds[0].revents) {
      // (replies are handled below; requests corked meanwhile go out after)
      const ssize_t n = ::recv(fd.get(), read_buffer.data(), read_buffer.size(), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        fail_everything(Error(Status::connection_lost,
                              "the rendezvous at " + endpoint + " closed the connection" +
                                  (n < 0 ? std::string(": ") + std::strerror(errno) : std::string())),
                        true);
        return;
      }
      if (n > 0) {
        std::optional<Error> failure;
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
        if (!ok) failure = Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent " + frames.error());
        if (failure) {
          fail_everything(*failure, true);
          return;
        }
        flush();
      }
    }
    send_heartbeat_if_idle();
  }
}

void Client::Impl::handle_frame(std::span<const std::uint8_t> body) {
  wire::Message m;
  std::string error;
  if (!wire::decode(body, options.limits, m, error)) {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent a malformed frame: " + error);
  }
  if (auto* reply = std::get_if<wire::Reply>(&m)) {
    ReplyHandler handler;
    {
      std::lock_guard lock(pending_mutex);
      auto it = pending.find(reply->id);
      if (it == pending.end()) return;  // the caller gave up (timed out)
      handler = std::move(it->second.handler);
      if (it->second.quick) quick_in_flight.fetch_sub(1);
      pending.erase(it);
    }
    handler(std::move(*reply));
  } else if (auto* event = std::get_if<Event>(&m)) {
    dispatch_event(std::move(*event));
  } else {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent an unexpected message");
  }
}

void Client::Impl::send_heartbeat_if_idle() {
  const std::int64_t idle = now_ns() - last_send_ns.load(std::memory_order_relaxed);
  if (idle < std::chrono::nanoseconds(heartbeat).count()) return;
  std::lock_guard lock(send_mutex);
  wire::encode(wire::Heartbeat{}, send_buffer);
  flush_locked();
}

bool Client::Impl::flush_locked() {
  if (send_buffer.empty()) return true;
  const bool ok = detail::write_all(fd.get(), send_buffer);
  send_buffer.clear();
  if (send_buffer.capacity() > (1u << 20)) send_buffer.shrink_to_fit();
  last_send_ns.store(now_ns(), std::memory_order_relaxed);
  return ok;
}

void Client::Impl::flush() {
  std::lock_guard lock(send_mutex);
  if (!flush_locked()) ::shutdown(fd.get(), SHUT_RDWR);  // the reader then reports the loss
}

void Client::Impl::abandon(std::uint32_t id) {
  {
    std::lock_guard lock(pending_mutex);
    auto it = pending.find(id);
    if (it == pending.end()) return;
    if (it->second.quick) quick_in_flight.fetch_sub(1);
    pending.erase(it);
  }
  flush();  // nothing may stay corked behind a request that will not be answered
}

// The connection is gone: every pending request completes with `error`, and
// later requests throw it.
void Client::Impl::fail_everything(const Error& error, bool notify) {
  std::unordered_map<std::uint32_t, Pending> orphans;
  {
    std::lock_guard lock(pending_mutex);
    if (broken) return;
    broken = true;
    broken_error = error;
    orphans.swap(pending);
  }
  for (auto& [id, p] : orphans) {
    p.handler(wire::Reply{id, error.status(), error.what(), std::monostate{}});
  }
  if (notify && options.on_disconnect) options.on_disconnect(error);
}

void Client::Impl::shutdown() {
  if (reader.joinable()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(wake.get(), &one, sizeof one);
    reader.join();
  }
  if (fd) ::shutdown(fd.get(), SHUT_RDWR);
  fail_everything(Error(Status::connection_lost, "the rendezvous client was closed"), false);
  {
    std::lock_guard lock(events_mutex);
    events_stop = true;
  }
  events_cv.notify_all();
  if (event_thread.joinable()) event_thread.join();
  fd.reset();
}

}  // namespace slipway::rendezvous
