// The routes of the observe endpoint (observe_endpoint.hpp).
#include "slipway/observe/observe_endpoint.hpp"
#include "slipway/base/local_address.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "slipway/core/plan.hpp"
#include "slipway/observe/event_log.hpp"
#include "slipway/observe/file_tail.hpp"
#include "slipway/observe/metrics_text.hpp"
#include "slipway/observe/page_files.hpp"

namespace slipway::observe {
namespace {

constexpr std::size_t kMaxEventsPerRequest = 500;
constexpr std::uint64_t kDefaultLogBytes = 16384;
constexpr std::uint64_t kMaxLogBytes = 65536;

HttpResponse text(int status, std::string body) {
  return {status, "text/plain; charset=utf-8", std::move(body), {}};
}

HttpResponse json_response(const nlohmann::json& body) {
  return {200, "application/json", body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), {}};
}

bool same_token(const std::string& given, const std::string& token) {
  if (given.size() != token.size() || token.empty()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

std::optional<std::uint64_t> number(const std::map<std::string, std::string>& query, const char* key) {
  auto it = query.find(key);
  if (it == query.end() || it->second.empty() || it->second.size() > 19 ||
      it->second.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoull(it->second);
}

// "127.0.0.1:8080", "localhost", "[::1]:80": a name of this host's loopback.
bool loopback_host(const std::string& host) {
  std::string name = host;
  if (!name.empty() && name.front() == '[') {
    name = name.substr(1, name.find(']') == std::string::npos ? 0 : name.find(']') - 1);
  } else if (auto colon = name.rfind(':'); colon != std::string::npos) {
    name = name.substr(0, colon);
  }
  return name == "localhost" || name == "::1" || name.rfind("127.", 0) == 0;
}

}  // namespace

std::string ensure_view_token(const std::string& run_directory) {
  const std::string path = run_directory + "/observe-token";
  const std::string existing = read_file_tail(path, 256, false);
  if (existing.size() == 64 && existing.find_first_not_of("0123456789abcdef") == std::string::npos) {
    return existing;
  }
  std::random_device random;
  std::string token;
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) {
    const unsigned byte = random() & 0xffu;
    token += kHex[byte >> 4];
    token += kHex[byte & 15];
  }
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || ::write(fd, token.data(), token.size()) != static_cast<ssize_t>(token.size()) ||
      ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write the view token " + path + ": " + why);
  }
  return token;
}

ObserveEndpoint::ObserveEndpoint(ObserveEndpointOptions options) : options_(std::move(options)) {
  if (options_.view_token.empty()) throw std::invalid_argument("the observe endpoint needs a view token");
  server_ = std::make_unique<HttpServer>(options_.address, [this](const HttpRequest& r) { return handle(r); });
}

ObserveEndpoint::~ObserveEndpoint() { server_.reset(); }

void ObserveEndpoint::publish(std::shared_ptr<const ProgramStatus> status) {
  std::lock_guard lock(mutex_);
  status_ = std::move(status);
}

std::shared_ptr<const ProgramStatus> ObserveEndpoint::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::uint16_t ObserveEndpoint::port() const { return server_->port(); }
bool ObserveEndpoint::loopback() const { return server_->loopback(); }

std::string ObserveEndpoint::url() const {
  std::string host = server_->host();
  if (host == "0.0.0.0" || host == "::") host = base::this_host_name();
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(server_->port()) + "/";
}

bool ObserveEndpoint::authorized(const HttpRequest& request) const {
  const std::string& token = options_.view_token;
  if (request.authorization && request.authorization->rfind("Bearer ", 0) == 0 &&
      same_token(request.authorization->substr(7), token)) {
    return true;
  }
  if (auto cookie = request.cookie("slipway_token"); cookie && same_token(*cookie, token)) return true;
  auto query = request.query.find("token");
  return query != request.query.end() && same_token(query->second, token);
}

HttpResponse ObserveEndpoint::handle(const HttpRequest& request) {
  if (server_->loopback() && !request.host.empty() && !loopback_host(request.host)) {
    return text(403, "this endpoint answers requests for its loopback address only\n");
  }
  const bool has_token = authorized(request);
  const bool needs_token = !server_->loopback() || request.path == "/api/log";
  if (needs_token && !has_token) {
    return text(401,
                "this needs the program's view token: open the page as URL?token=TOKEN, or send "
                "'Authorization: Bearer TOKEN'; the token is in RUN/observe-token (docs/observe.md)\n");
  }
  if (request.query.count("token")) {
    // Once: the token moves to a cookie, and out of the address bar.
    HttpResponse redirect = text(303, "see " + request.path + "\n");
    redirect.headers["Location"] = request.path;
    redirect.headers["Set-Cookie"] =
        "slipway_token=" + options_.view_token + "; Path=/; HttpOnly; SameSite=Strict";
    return redirect;
  }
  std::string page = request.path == "/" ? "index.html" : request.path.substr(1);
  if (const PageFile* file = find_page_file(page)) {
    return {200, std::string(file->content_type), std::string(file->content), {}};
  }
  const auto status = this->status();
  if (request.path == "/metrics") {
    if (!status) return text(503, "the program is starting\n");
    return {200, "text/plain; version=0.0.4; charset=utf-8", render_metrics(*status, options_.version), {}};
  }
  if (request.path == "/api/status") {
    if (!status) return text(503, "the program is starting\n");
    return json_response(to_json(*status));
  }
  if (request.path == "/api/events") {
    const std::uint64_t after = number(request.query, "after").value_or(0);
    const std::size_t limit =
        static_cast<std::size_t>(std::min<std::uint64_t>(number(request.query, "limit").value_or(kMaxEventsPerRequest),
                                                         kMaxEventsPerRequest));
    nlohmann::json events = nlohmann::json::array();
    for (const Event& e : read_events(options_.run_directory, after, limit)) events.push_back(to_json(e));
    return json_response(events);
  }
  if (request.path == "/api/log") {
    auto task = request.query.find("task");
    const auto name = task == request.query.end() ? std::nullopt : core::parse_task_name(task->second);
    if (!name || name->node.find('/') != std::string::npos || name->node.front() == '.') {
      return text(400, "say which task: /api/log?task=NODE.REPLICA\n");
    }
    const std::uint64_t bytes = std::min(number(request.query, "bytes").value_or(kDefaultLogBytes), kMaxLogBytes);
    const std::string path = options_.run_directory + "/logs/" + name->node + "." +
                             std::to_string(name->replica) + ".log";
    if (::access(path.c_str(), R_OK) != 0) return text(404, "no log for " + task->second + " (yet)\n");
    return text(200, read_file_tail(path, bytes, false));
  }
  return text(404, "not found: " + request.path +
                       " (this endpoint serves /, /metrics, /api/status, /api/events, /api/log)\n");
}

}  // namespace slipway::observe
