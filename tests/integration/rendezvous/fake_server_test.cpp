// The client against a hand-written fake server on loopback: a server that
// does not know the secret is refused (mutual authentication), and one that
// never answers makes blocking calls time out instead of hanging; one that
// closes connections before the handshake is tried again, a bounded number
// of times.
#include <catch2/catch.hpp>

#include <asio.hpp>
#include <sys/socket.h>
#include <atomic>
#include <limits>
#include <thread>

#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/token.hpp"
#include "slipway/rendezvous/wire.hpp"

using namespace slipway::rendezvous;
using namespace std::chrono_literals;

namespace {

// Closes the first `drop_first` connections it accepts unanswered (as the
// server does to the oldest unauthenticated connection at its cap). Then
// accepts one connection, runs the handshake with `server_token` (which may
// differ from the client's), then answers nothing: it counts the heartbeats
// it gets and, with `chatter`, sends a heartbeat of its own every 2 ms (data
// that wakes the client's reader thread).
class FakeServer {
 public:
  explicit FakeServer(std::string server_token, std::uint32_t heartbeat_ms = 1000, bool chatter = false,
                      int drop_first = 0)
      : token_(std::move(server_token)),
        heartbeat_ms_(heartbeat_ms),
        chatter_(chatter),
        drop_first_(drop_first),
        acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeServer() {
    asio::error_code ignored;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);  // wakes a blocked accept(); close() does not
    acceptor_.close(ignored);
    done_ = true;
    if (socket_) socket_->shutdown(asio::socket_base::shutdown_both, ignored);
    thread_.join();
    if (chatter_thread_.joinable()) chatter_thread_.join();
  }
  int heartbeats() const { return heartbeats_; }
  int dropped() const { return dropped_; }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }

 private:
  wire::Message read_frame(asio::ip::tcp::socket& s) {
    std::uint8_t header[4];
    asio::read(s, asio::buffer(header));
    std::vector<std::uint8_t> body(header[0] | (header[1] << 8) | (header[2] << 16));
    asio::read(s, asio::buffer(body));
    wire::Message m;
    std::string error;
    if (!wire::decode(body, Limits{}, m, error)) throw std::runtime_error(error);
    return m;
  }

  void serve() {
    try {
      for (; dropped_ < drop_first_; ++dropped_) acceptor_.accept().close();
      socket_.emplace(acceptor_.accept());
      wire::Challenge challenge;
      challenge.server_nonce[3] = 42;
      challenge.heartbeat_interval_ms = heartbeat_ms_;
      challenge.miss_budget = 3;
      std::string out;
      wire::encode(challenge, out);
      asio::write(*socket_, asio::buffer(out));
      const auto hello = std::get<wire::Hello>(read_frame(*socket_));
      wire::Welcome welcome;
      welcome.server_mac = wire::server_mac(HmacKey(token_), challenge.server_nonce, hello.client_nonce);
      out.clear();
      wire::encode(welcome, out);
      asio::write(*socket_, asio::buffer(out));
      if (chatter_) {
        chatter_thread_ = std::thread([this] {
          std::string beat;
          wire::encode(wire::Heartbeat{}, beat);
          asio::error_code ec;
          while (!done_ && !ec) {
            asio::write(*socket_, asio::buffer(beat), ec);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
          }
        });
      }
      for (;;) {
        if (std::holds_alternative<wire::Heartbeat>(read_frame(*socket_))) ++heartbeats_;
      }
    } catch (const std::exception&) {
      // closed by the test
    }
  }

  std::string token_;
  std::uint32_t heartbeat_ms_;
  bool chatter_;
  int drop_first_;
  std::atomic<int> dropped_{0};
  std::atomic<int> heartbeats_{0};
  std::atomic<bool> done_{false};
  std::thread chatter_thread_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  std::optional<asio::ip::tcp::socket> socket_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("a server that does not know the secret is refused by the client",
          "[rendezvous][integration][security]") {
  FakeServer impostor(generate_token());
  try {
    Client::connect(impostor.endpoint(), generate_token(), Identity{"a", 0, 0, "", 0});
    FAIL("accepted a server without the secret");
  } catch (const Error& e) {
    CHECK(e.status() == Status::auth_failed);
    CHECK(std::string(e.what()).find("not this program's rendezvous") != std::string::npos);
  }
}

TEST_CASE("a connection closed before the handshake is tried again", "[rendezvous][integration][faults]") {
  const std::string token = generate_token();
  FakeServer server(token, 1000, false, 3);
  auto client = Client::connect(server.endpoint(), token, Identity{"a", 0, 0, "", 0});
  CHECK(server.dropped() == 3);
  CHECK(client->connected());
}

TEST_CASE("a server that closes every connection is given up on within the connect timeout",
          "[rendezvous][integration][faults]") {
  FakeServer server(generate_token(), 1000, false, std::numeric_limits<int>::max());
  ClientOptions options;
  options.connect_timeout = 1500ms;
  const auto started = std::chrono::steady_clock::now();
  try {
    Client::connect(server.endpoint(), generate_token(), Identity{"a", 0, 0, "", 0}, options);
    FAIL("connected to a server that closes every connection");
  } catch (const Error& e) {
    CHECK(e.status() == Status::connection_lost);
    CHECK(std::string(e.what()).find("attempts)") != std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - started < 3s);
  CHECK(server.dropped() >= 2);
  CHECK(server.dropped() <= 16);
}

TEST_CASE("blocking calls to a server that never answers time out", "[rendezvous][integration][faults]") {
  const std::string token = generate_token();
  FakeServer silent(token);
  ClientOptions options;
  options.request_timeout = 300ms;
  options.timeout_grace = 200ms;
  auto c = Client::connect(silent.endpoint(), token, Identity{"a", 0, 0, "", 0}, options);
  try {
    c->get("k");
    FAIL("a get without reply returned");
  } catch (const Error& e) {
    CHECK(e.status() == Status::timeout);
  }
  // Still usable afterwards, and a second call is not stuck behind the first.
  CHECK_THROWS_AS(c->put("k", "v", Scope::program), Error);
  CHECK_THROWS_AS(c->wait_for("k", 100ms), Error);
  CHECK(c->connected());
}

TEST_CASE("a blocking call waiting long for its reply does not stop the heartbeats",
          "[rendezvous][integration][faults]") {
  // A quick call (get) reads the socket for itself until its reply comes;
  // data arriving meanwhile wakes the reader thread, which then waits for
  // the socket too. Heartbeats must go on (a loaded server answered a
  // 1,000-task program's gets late, and its members were failed as silent).
  const std::string token = generate_token();
  FakeServer slow(token, 50, true);
  ClientOptions options;
  options.request_timeout = 1000ms;
  auto c = Client::connect(slow.endpoint(), token, Identity{"a", 0, 0, "", 0}, options);
  const int before = slow.heartbeats();
  CHECK_THROWS_AS(c->get("k"), Error);  // no reply within 1 s: 20 intervals
  const int during = slow.heartbeats() - before;
  INFO("heartbeats sent while the get waited: " << during);
  CHECK(during >= 10);
}
