// The client's connection: handshake (challenge, HMAC proof, server proof),
// corked sends, heartbeats and shutdown. Reading is in client_reading.cpp.
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "client_impl.hpp"
#include "slipway/base/write_all.hpp"
#include "slipway/rendezvous/endpoint.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::rendezvous {
namespace {

// The connection was closed or reset before the server's Welcome: the
// server never authenticated it (open() tries again).
struct HandshakeLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bounds open()'s retries whatever connect_timeout says.
constexpr int kMaxHandshakeAttempts = 16;

// Reads one whole frame during the handshake (before the reader thread runs).
wire::Message read_frame(int fd, const Limits& limits, std::uint32_t max_bytes,
                         detail::Deadline deadline, const std::string& endpoint) {
  std::uint8_t header[4];
  if (!detail::read_exact(fd, header, deadline)) {
    const std::string what = "the rendezvous at " + endpoint + " did not complete the handshake: " +
                             std::strerror(errno);
    if (errno == ETIMEDOUT) throw Error(Status::timeout, what);
    throw HandshakeLost(what);
  }
  const std::uint32_t len = header[0] | (header[1] << 8) | (header[2] << 16) | (std::uint32_t{header[3]} << 24);
  if (len == 0 || len > max_bytes) {
    throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " sent a handshake frame of " +
                                            std::to_string(len) + " bytes: is this a slipway rendezvous?");
  }
  std::vector<std::uint8_t> body(len);
  if (!detail::read_exact(fd, body, deadline)) {
    if (errno == ETIMEDOUT) {
      throw Error(Status::timeout, "the rendezvous at " + endpoint + " did not complete the handshake: " +
                                       std::strerror(errno));
    }
    throw HandshakeLost("the rendezvous at " + endpoint + " closed the connection during the handshake");
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
      frames(options.limits.max_frame_bytes) {}

Client::Impl::~Impl() { shutdown(); }

void Client::Impl::open(const std::string& token, bool as_member) {
  if (token.empty()) throw Error(Status::auth_failed, "the program's secret is empty (SLIPWAY_TOKEN)");
  read_buffer.resize(64 * 1024);  // only a connection's owner reads (a channel does not)
  const Endpoint ep = parse_endpoint(endpoint);
  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  // A server at its cap of unauthenticated connections from one address
  // closes the oldest of them (issue 27 item 4): a task that was slow to
  // answer its challenge while others kept connecting loses its connection
  // before any Welcome. The server has not authenticated it, let alone
  // joined it, so the handshake is tried again on a new connection, with a
  // growing pause, until connect_timeout. A refused TCP connect, a timeout,
  // a refusal or a wrong secret is not retried.
  auto pause = std::chrono::milliseconds(10);
  for (int attempt = 1;; ++attempt) {
    fd = detail::connect_tcp(ep.host, ep.port, deadline);
    try {
      handshake(token, as_member, detail::Deadline{deadline});
      break;
    } catch (const HandshakeLost& lost) {
      fd = base::UniqueFd();
      const auto now = std::chrono::steady_clock::now();
      if (attempt >= kMaxHandshakeAttempts || now + pause >= deadline) {
        throw Error(Status::connection_lost, std::string(lost.what()) + " (" + std::to_string(attempt) +
                                                 (attempt == 1 ? " attempt)" : " attempts)"));
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(320));
    }
  }

  wake = base::UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake) throw Error(Status::connection_lost, std::string("eventfd: ") + std::strerror(errno));
  reader = std::thread([this] { reader_loop(); });
  event_thread = std::thread([this] { event_loop(); });
}

void Client::Impl::handshake(const std::string& token, bool as_member, detail::Deadline deadline) {
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
  const double silent_intervals =
      std::max(1.5, static_cast<double>(std::min<std::uint32_t>(challenge->miss_budget, 600)) - 0.5);
  silence = std::chrono::duration_cast<std::chrono::nanoseconds>(heartbeat * silent_intervals);

  key.emplace(token);
  server_nonce = challenge->server_nonce;
  wire::Hello hello;
  hello.role = as_member ? wire::Role::member : wire::Role::observer;
  if (as_member) hello.identity = identity;
  random_bytes(hello.client_nonce);
  hello.mac = wire::client_mac(*key, challenge->server_nonce, hello);
  std::string frame;
  wire::encode(hello, frame);
  if (!base::send_all(fd.get(), frame)) {
    throw HandshakeLost("lost the connection to the rendezvous at " + endpoint + " during the handshake");
  }
  const auto welcome_msg = read_frame(fd.get(), options.limits, options.limits.max_frame_bytes, deadline, endpoint);
  const auto* welcome = std::get_if<wire::Welcome>(&welcome_msg);
  if (!welcome) throw Error(Status::protocol_error, "the rendezvous at " + endpoint + " did not answer the handshake");
  if (welcome->status != Status::ok) {
    throw Error(welcome->status, "the rendezvous at " + endpoint + " refused " +
                                     (as_member ? identity.name() : std::string("this observer")) + ": " +
                                     welcome->message);
  }
  const Digest expected = wire::server_mac(*key, challenge->server_nonce, hello.client_nonce);
  if (!constant_time_equal(expected, welcome->server_mac)) {
    throw Error(Status::auth_failed, "the server at " + endpoint +
                                         " does not know this program's secret: it is not this program's rendezvous");
  }
  member = as_member;
  generation = welcome->generation;
  last_send_ns.store(steady_now_ns());
  last_receive_ns.store(steady_now_ns());  // the welcome just came
  // The reader thread is due to look now: a stall before its first look
  // (it may not run before the first calls are answered) is forgiven too.
  look_due_ns = last_receive_ns.load();
}

void Client::Impl::send_heartbeat_if_idle() {
  const std::int64_t idle = steady_now_ns() - last_send_ns.load(std::memory_order_relaxed);
  if (idle < std::chrono::nanoseconds(heartbeat).count()) return;
  std::lock_guard lock(send_mutex);
  wire::encode(wire::Heartbeat{}, send_buffer);
  flush_locked();
}

bool Client::Impl::flush_locked() {
  if (send_buffer.empty()) return true;
  const bool ok = base::send_all(fd.get(), send_buffer);
  send_buffer.clear();
  if (send_buffer.capacity() > (1u << 20)) send_buffer.shrink_to_fit();
  last_send_ns.store(steady_now_ns(), std::memory_order_relaxed);
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
    if (it->second.quick) link().quick_in_flight.fetch_sub(1);
    pending.erase(it);
  }
  link().flush();  // nothing may stay corked behind a request that will not be answered
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
  if (host) return;
  // A link: every member it carries goes with it.
  std::vector<std::shared_ptr<Impl>> carried;
  {
    std::lock_guard lock(channels_mutex);
    for (auto& [number, weak] : channels) {
      if (auto c = weak.lock()) carried.push_back(std::move(c));
    }
    channels.clear();
  }
  for (auto& c : carried) {
    {
      std::lock_guard lock(c->welcome_mutex);
      if (!c->channel_welcome) c->channel_welcome = wire::Welcome{error.status(), error.what(), {}, 0};
    }
    c->welcome_cv.notify_all();
    c->fail_everything(error, notify);
  }
}

void Client::Impl::shutdown() {
  if (host) {
    close_channel();
    return;
  }
  closing.store(true);
  if (reader.joinable()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(wake.get(), &one, sizeof one);
    park_cv.notify_all();
    if (fd) ::shutdown(fd.get(), SHUT_RDWR);  // also wakes callers reading for themselves
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
