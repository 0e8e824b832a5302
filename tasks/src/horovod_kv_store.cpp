// Horovod's rendezvous store and the HTTP request parser in front of it
// (see horovod_rendezvous.hpp).
#include <algorithm>
#include <cctype>
#include <charconv>

#include "slipway/tasks/horovod_rendezvous.hpp"

namespace slipway::tasks {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

HttpParse bad(std::string why) {
  HttpParse p;
  p.state = HttpParse::State::bad;
  p.error = std::move(why);
  return p;
}

}  // namespace

HttpParse parse_http_request(const std::string& received) {
  auto head_end = received.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    return received.size() > kHttpMaxHead ? bad("request head over 8 KiB") : HttpParse{};
  }
  if (head_end > kHttpMaxHead) return bad("request head over 8 KiB");
  auto line_end = received.find("\r\n");
  std::string line = received.substr(0, line_end);
  auto sp1 = line.find(' ');
  auto sp2 = line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1) return bad("malformed request line");
  HttpRequest request;
  request.method = line.substr(0, sp1);
  std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (line.compare(sp2 + 1, 5, "HTTP/") != 0) return bad("not an HTTP request");
  // "/SCOPE/KEY": exactly two parts, as Horovod's handler splits it.
  if (path.size() < 2 || path[0] != '/') return bad("path is not /SCOPE/KEY");
  auto slash = path.find('/', 1);
  if (slash == std::string::npos || path.find('/', slash + 1) != std::string::npos) {
    return bad("path is not /SCOPE/KEY");
  }
  request.scope = path.substr(1, slash - 1);
  request.key = path.substr(slash + 1);

  std::size_t length = 0;
  std::size_t pos = line_end + 2;
  while (pos < head_end) {
    auto end = received.find("\r\n", pos);
    std::string header = received.substr(pos, end - pos);
    pos = end + 2;
    auto colon = header.find(':');
    if (colon == std::string::npos) return bad("malformed header");
    if (lower(header.substr(0, colon)) != "content-length") continue;
    auto value = header.substr(colon + 1);
    auto first = value.find_first_not_of(" \t");
    auto last = value.find_last_not_of(" \t");
    if (first == std::string::npos) return bad("empty Content-Length");
    const char* b = value.data() + first;
    const char* e = value.data() + last + 1;
    auto [ptr, ec] = std::from_chars(b, e, length);
    if (ec != std::errc() || ptr != e) return bad("malformed Content-Length");
    if (length > kHttpMaxValue) return bad("value over 16 MiB");
  }
  std::size_t body_start = head_end + 4;
  if (received.size() < body_start + length) return HttpParse{};
  request.body = received.substr(body_start, length);
  HttpParse done;
  done.state = HttpParse::State::complete;
  done.request = std::move(request);
  return done;
}

std::map<std::string, std::uint32_t> HorovodKvStore::scope_sizes(const core::Plan& plan,
                                                                  const std::string& node) {
  std::map<std::string, std::uint32_t> sizes;
  for (const core::Task* t : plan.tasks_of(node)) {
    ++sizes["global"];
    ++sizes["local_" + plan.host(*t).name];
    ++sizes["cross_" + std::to_string(t->local_rank)];
  }
  return sizes;
}

std::pair<int, std::string> HorovodKvStore::handle(const HttpRequest& r) {
  if (r.method == "GET") {
    auto scope = scopes_.find(r.scope);
    if (scope == scopes_.end()) return {404, ""};
    auto value = scope->second.find(r.key);
    if (value == scope->second.end()) return {404, ""};
    return {200, value->second};
  }
  if (r.method == "PUT") {
    auto& scope = scopes_[r.scope];
    auto old = scope.find(r.key);
    std::size_t freed = old == scope.end() ? 0 : old->second.size() + r.key.size();
    if (bytes_ - freed + r.body.size() + r.key.size() > kMaxBytes) return {413, ""};
    bytes_ = bytes_ - freed + r.body.size() + r.key.size();
    scope[r.key] = r.body;
    return {200, ""};
  }
  if (r.method == "DELETE") {
    auto forget_scope = [this](const std::string& name) {
      auto scope = scopes_.find(name);
      if (scope == scopes_.end()) return;
      for (const auto& [key, value] : scope->second) bytes_ -= key.size() + value.size();
      scopes_.erase(scope);
    };
    auto size = sizes_.find(r.scope);
    if (size != sizes_.end()) {
      auto& finished = finished_[r.scope];
      finished.insert(r.key);
      if (finished.size() >= size->second) {
        forget_scope(r.scope);
        finished_.erase(r.scope);
      }
    } else if (auto scope = scopes_.find(r.scope); scope != scopes_.end()) {
      if (auto value = scope->second.find(r.key); value != scope->second.end()) {
        bytes_ -= value->first.size() + value->second.size();
        scope->second.erase(value);
      }
      if (scope->second.empty()) scopes_.erase(scope);
    }
    return {200, ""};
  }
  return {405, ""};
}

}  // namespace slipway::tasks
