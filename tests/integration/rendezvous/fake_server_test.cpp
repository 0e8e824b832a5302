// The client against a hand-written fake server on loopback: a server that
// does not know the secret is refused (mutual authentication), and one that
// never answers makes blocking calls time out instead of hanging.
#include <catch2/catch.hpp>

#include <asio.hpp>
#include <thread>

#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/token.hpp"
#include "slipway/rendezvous/wire.hpp"

using namespace slipway::rendezvous;
using namespace std::chrono_literals;

namespace {

// Accepts one connection, runs the handshake with `server_token` (which may
// differ from the client's), then reads and ignores everything.
class FakeServer {
 public:
  explicit FakeServer(std::string server_token)
      : token_(std::move(server_token)), acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeServer() {
    asio::error_code ignored;
    acceptor_.close(ignored);
    if (socket_) socket_->shutdown(asio::socket_base::shutdown_both, ignored);
    thread_.join();
  }
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
      socket_.emplace(acceptor_.accept());
      wire::Challenge challenge;
      challenge.server_nonce[3] = 42;
      challenge.heartbeat_interval_ms = 1000;
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
      char sink[4096];
      for (;;) socket_->read_some(asio::buffer(sink));
    } catch (const std::exception&) {
      // closed by the test
    }
  }

  std::string token_;
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
