// Horovod's rendezvous store: parsing, scope semantics, bounds, and the
// server answering real HTTP over loopback.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "slipway/tasks/horovod_rendezvous.hpp"
#include "slipway/base/write_all.hpp"

using namespace slipway::tasks;
namespace base = slipway::base;
using State = HttpParse::State;

namespace {

HttpRequest request(std::string method, std::string scope, std::string key, std::string body = "") {
  return {std::move(method), std::move(scope), std::move(key), std::move(body)};
}

// Sends one raw request to 127.0.0.1:port and returns the whole response.
std::string exchange(std::uint16_t port, const std::string& raw) {
  base::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(base::write_all(fd.get(), raw));
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd.get(), buffer, sizeof buffer)) > 0) response.append(buffer, static_cast<std::size_t>(n));
  return response;
}

}  // namespace

TEST_CASE("horovod rendezvous: a request is parsed once its body is complete", "[horovod]") {
  std::string raw = "PUT /global/rank_0 HTTP/1.1\r\nHost: x\r\ncontent-length: 5\r\n\r\nhel";
  CHECK(parse_http_request(raw).state == State::incomplete);
  raw += "lo";
  auto parsed = parse_http_request(raw);
  REQUIRE(parsed.state == State::complete);
  CHECK(parsed.request.method == "PUT");
  CHECK(parsed.request.scope == "global");
  CHECK(parsed.request.key == "rank_0");
  CHECK(parsed.request.body == "hello");
  CHECK(parse_http_request("GET /global/k HTTP/1.0\r\n\r\n").state == State::complete);
  CHECK(parse_http_request("GET /global/k HTTP/1.0\r\n").state == State::incomplete);
}

TEST_CASE("horovod rendezvous: malformed and oversized requests are refused", "[horovod]") {
  CHECK(parse_http_request("GET /onlyscope HTTP/1.1\r\n\r\n").state == State::bad);
  CHECK(parse_http_request("GET /a/b/c HTTP/1.1\r\n\r\n").state == State::bad);
  CHECK(parse_http_request("GET /a/b FTP/1.1\r\n\r\n").state == State::bad);
  CHECK(parse_http_request("GARBAGE\r\n\r\n").state == State::bad);
  CHECK(parse_http_request("PUT /a/b HTTP/1.1\r\nContent-Length: x1\r\n\r\n").state == State::bad);
  CHECK(parse_http_request("PUT /a/b HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n").state ==
        State::bad);
  CHECK(parse_http_request(std::string(kHttpMaxHead + 1, 'a')).state == State::bad);
}

TEST_CASE("horovod rendezvous: PUT then GET, 404 for what was never put", "[horovod]") {
  HorovodKvStore store({{"global", 2}});
  CHECK(store.handle(request("GET", "global", "rank_0")).first == 404);
  CHECK(store.handle(request("PUT", "global", "rank_0", "addr0")) == std::pair<int, std::string>{200, ""});
  CHECK(store.handle(request("GET", "global", "rank_0")) == std::pair<int, std::string>{200, "addr0"});
  CHECK(store.handle(request("POST", "global", "rank_0")).first == 405);
}

TEST_CASE("horovod rendezvous: a sized scope is cleared once every member finished", "[horovod]") {
  HorovodKvStore store({{"global", 2}});
  store.handle(request("PUT", "global", "rank_0", "a"));
  store.handle(request("PUT", "global", "rank_1", "b"));
  store.handle(request("DELETE", "global", "rank_0"));
  store.handle(request("DELETE", "global", "rank_0"));  // the same member twice counts once
  CHECK(store.handle(request("GET", "global", "rank_1")).first == 200);
  store.handle(request("DELETE", "global", "rank_1"));
  CHECK(store.handle(request("GET", "global", "rank_0")).first == 404);
  CHECK(store.handle(request("GET", "global", "rank_1")).first == 404);
}

TEST_CASE("horovod rendezvous: in an ad-hoc scope DELETE removes the key", "[horovod]") {
  HorovodKvStore store({});
  store.handle(request("PUT", "mine", "k", "v"));
  store.handle(request("PUT", "mine", "j", "w"));
  store.handle(request("DELETE", "mine", "k"));
  CHECK(store.handle(request("GET", "mine", "k")).first == 404);
  CHECK(store.handle(request("GET", "mine", "j")).first == 200);
}

TEST_CASE("horovod rendezvous: the store refuses to hold more than its bound", "[horovod]") {
  HorovodKvStore store({});
  std::string big(kHttpMaxValue, 'x');
  int refused = 0;
  for (int i = 0; i < 20; ++i) {
    if (store.handle(request("PUT", "s", "k" + std::to_string(i), big)).first == 413) ++refused;
  }
  CHECK(refused == 20 - static_cast<int>(HorovodKvStore::kMaxBytes / (kHttpMaxValue + 2)));
  // Replacing a value frees the old one first.
  CHECK(store.handle(request("PUT", "s", "k0", big)).first == 200);
}

TEST_CASE("horovod rendezvous: the scopes Horovod finalizes by follow the plan", "[horovod]") {
  slipway::core::Plan plan;
  plan.hosts = {{"h0", "", 4, 0, 0, {}}, {"h1", "", 4, 0, 0, {}}};
  for (std::uint32_t r = 0; r < 3; ++r) {
    slipway::core::Task t;
    t.node = "hvd";
    t.replica = r;
    t.host = r < 2 ? 0 : 1;
    t.local_rank = r < 2 ? r : 0;
    plan.tasks.push_back(t);
  }
  auto sizes = HorovodKvStore::scope_sizes(plan, "hvd");
  CHECK(sizes["global"] == 3);
  CHECK(sizes["local_h0"] == 2);
  CHECK(sizes["local_h1"] == 1);
  CHECK(sizes["cross_0"] == 2);
  CHECK(sizes["cross_1"] == 1);
}

TEST_CASE("horovod rendezvous: the server answers HTTP on its socket", "[horovod]") {
  base::UniqueFd listener(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t length = sizeof addr;
  getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &length);
  const std::uint16_t port = ntohs(addr.sin_port);
  HorovodRendezvousServer server(std::move(listener), HorovodKvStore({{"global", 1}}));

  CHECK(exchange(port, "GET /global/rank_0 HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(exchange(port, "PUT /global/rank_0 HTTP/1.1\r\nContent-Length: 4\r\n\r\naddr")
            .rfind("HTTP/1.1 200", 0) == 0);
  std::string got = exchange(port, "GET /global/rank_0 HTTP/1.1\r\n\r\n");
  CHECK(got.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(got.find("Content-Length: 4\r\n") != std::string::npos);
  CHECK(got.substr(got.size() - 4) == "addr");
  CHECK(exchange(port, "BAD\r\n\r\n").rfind("HTTP/1.1 400", 0) == 0);
}
