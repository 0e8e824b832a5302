// The observe endpoint on a real libmicrohttpd server: routes, the token
// rules, and what it refuses. A raw HTTP/1.0 client over loopback.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "slipway/observe/event_log.hpp"
#include "slipway/observe/observe_endpoint.hpp"

namespace fs = std::filesystem;
using namespace slipway::observe;

namespace {

struct Reply {
  int status = 0;
  std::string head, body;
};

Reply request(std::uint16_t port, const std::string& method, const std::string& target,
              const std::string& extra_headers = "", const std::string& host = "127.0.0.1") {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  const std::string req = method + " " + target + " HTTP/1.0\r\nHost: " + host + "\r\n" + extra_headers + "\r\n";
  REQUIRE(::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size()));
  std::string all;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) all.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  Reply r;
  const auto split = all.find("\r\n\r\n");
  r.head = all.substr(0, split);
  r.body = split == std::string::npos ? "" : all.substr(split + 4);
  r.status = std::stoi(all.substr(9, 3));
  return r;
}

struct TempRun {
  std::string path;
  TempRun() {
    char name[] = "/tmp/slipway-endpoint-XXXXXX";
    path = ::mkdtemp(name);
    fs::create_directory(path + "/logs");
    std::ofstream(path + "/logs/actor.0.log") << std::string(100000, 'a') << "the last line\n";
  }
  ~TempRun() { fs::remove_all(path); }
};

std::shared_ptr<const ProgramStatus> a_status() {
  auto s = std::make_shared<ProgramStatus>();
  s->program = "impala";
  NodeStatus n;
  n.name = "actor";
  n.type = "exec";
  n.tasks.push_back(TaskStatus{0, "running", "h", 12, 0, 0, {}, {}, {}, {}, {}});
  finish_node(n);
  s->nodes.push_back(n);
  return s;
}

}  // namespace

TEST_CASE("on loopback: metrics and status after the first publish; the log needs the token") {
  TempRun run;
  const std::string token = ensure_view_token(run.path);
  CHECK(token.size() == 64);
  CHECK(ensure_view_token(run.path) == token);  // kept
  struct stat st{};
  REQUIRE(::stat((run.path + "/observe-token").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  ObserveEndpoint endpoint({"127.0.0.1:0", run.path, token, "0.1.0"});
  CHECK(endpoint.loopback());
  CHECK(endpoint.url() == "http://127.0.0.1:" + std::to_string(endpoint.port()) + "/");
  CHECK(request(endpoint.port(), "GET", "/metrics").status == 503);
  endpoint.publish(a_status());
  auto metrics = request(endpoint.port(), "GET", "/metrics");
  CHECK(metrics.status == 200);
  CHECK(metrics.head.find("text/plain; version=0.0.4") != std::string::npos);
  CHECK(metrics.body.find("slipway_task_up{program=\"impala\",node=\"actor\",replica=\"0\"} 1") != std::string::npos);
  auto status = request(endpoint.port(), "GET", "/api/status");
  CHECK(status.status == 200);
  CHECK(status.body.find("\"schema\":1") != std::string::npos);
  CHECK(status.body.find(token) == std::string::npos);

  CHECK(request(endpoint.port(), "GET", "/api/log?task=actor.0").status == 401);
  auto log = request(endpoint.port(), "GET", "/api/log?task=actor.0&bytes=14", "Authorization: Bearer " + token + "\r\n");
  CHECK(log.status == 200);
  CHECK(log.body == "the last line\n");
  auto capped = request(endpoint.port(), "GET", "/api/log?task=actor.0&bytes=999999999",
                        "Authorization: Bearer " + token + "\r\n");
  CHECK(capped.body.size() == 65536);
  CHECK(request(endpoint.port(), "GET", "/api/log?task=../../etc/passwd.0", "Cookie: slipway_token=" + token + "\r\n")
            .status == 400);
  CHECK(request(endpoint.port(), "GET", "/api/log?task=actor.7", "Cookie: slipway_token=" + token + "\r\n").status ==
        404);
  CHECK(request(endpoint.port(), "GET", "/api/log?task=actor.0", "Authorization: Bearer " + std::string(64, '0') + "\r\n")
            .status == 401);
}

TEST_CASE("?token= once sets the cookie and leaves the address bar") {
  TempRun run;
  const std::string token = ensure_view_token(run.path);
  ObserveEndpoint endpoint({"127.0.0.1:0", run.path, token, "0.1.0"});
  auto r = request(endpoint.port(), "GET", "/api/log?token=" + token);
  CHECK(r.status == 303);
  CHECK(r.head.find("Location: /api/log") != std::string::npos);
  CHECK(r.head.find("slipway_token=" + token + "; Path=/; HttpOnly; SameSite=Strict") != std::string::npos);
}

TEST_CASE("events are served after a sequence number") {
  TempRun run;
  {
    EventLog log(events_path(run.path), "impala");
    for (int k = 0; k < 5; ++k) log.append(Event{0, 0, "", "start", "actor", 0u, 0, {}, "h", ""});
  }
  ObserveEndpoint endpoint({"127.0.0.1:0", run.path, ensure_view_token(run.path), "0.1.0"});
  auto r = request(endpoint.port(), "GET", "/api/events?after=3");
  CHECK(r.status == 200);
  CHECK(r.body.find("\"seq\":4") != std::string::npos);
  CHECK(r.body.find("\"seq\":3") == std::string::npos);
}

TEST_CASE("only reads, only for this host's own names, and only with the token off loopback") {
  TempRun run;
  const std::string token = ensure_view_token(run.path);
  {
    ObserveEndpoint endpoint({"127.0.0.1:0", run.path, token, "0.1.0"});
    endpoint.publish(a_status());
    CHECK(request(endpoint.port(), "POST", "/metrics").status == 405);
    CHECK(request(endpoint.port(), "DELETE", "/api/status").status == 405);
    CHECK(request(endpoint.port(), "GET", "/metrics", "", "attacker.example:80").status == 403);  // DNS rebinding
    CHECK(request(endpoint.port(), "GET", "/metrics", "", "localhost:1234").status == 200);
    CHECK(request(endpoint.port(), "GET", "/nothing").status == 404);
  }
  // Bound to every address: nothing without the token.
  ObserveEndpoint open({"0.0.0.0:0", run.path, token, "0.1.0"});
  open.publish(a_status());
  CHECK_FALSE(open.loopback());
  CHECK(request(open.port(), "GET", "/metrics").status == 401);
  CHECK(request(open.port(), "GET", "/").status == 401);
  CHECK(request(open.port(), "GET", "/metrics", "Authorization: Bearer " + token + "\r\n").status == 200);
  CHECK(request(open.port(), "GET", "/api/status", "Cookie: slipway_token=" + token + "\r\n").status == 200);
}

TEST_CASE("an address that cannot be bound is said") {
  TempRun run;
  const std::string token = ensure_view_token(run.path);
  ObserveEndpoint first({"127.0.0.1:0", run.path, token, "0.1.0"});
  try {
    ObserveEndpoint second({"127.0.0.1:" + std::to_string(first.port()), run.path, token, "0.1.0"});
    FAIL("bound a port in use");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("cannot serve metrics on 127.0.0.1:" + std::to_string(first.port())) !=
          std::string::npos);
  }
  CHECK_THROWS_AS(parse_listen_address("host:99999"), std::invalid_argument);
  CHECK_THROWS_AS(parse_listen_address("[::1"), std::invalid_argument);
  CHECK(parse_listen_address("9464") == std::pair<std::string, std::uint16_t>{"127.0.0.1", 9464});
  CHECK(parse_listen_address("[::1]:80") == std::pair<std::string, std::uint16_t>{"::1", 80});
}
