// libmicrohttpd behind HttpServer (http_server.hpp).
#include "slipway/observe/http_server.hpp"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace slipway::observe {

std::optional<std::string> HttpRequest::cookie(const std::string& name) const {
  auto it = cookies.find(name);
  if (it == cookies.end()) return std::nullopt;
  return it->second;
}

std::pair<std::string, std::uint16_t> parse_listen_address(const std::string& address) {
  std::string host = "127.0.0.1", port = address;
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find(']');
    if (close == std::string::npos || address.size() < close + 3 || address[close + 1] != ':') {
      throw std::invalid_argument("'" + address + "' is not [IPV6]:PORT");
    }
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else if (const auto colon = address.rfind(':'); colon != std::string::npos) {
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  if (host.empty() || port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535) {
    throw std::invalid_argument("'" + address + "' is not HOST:PORT or PORT (a port from 0 to 65535)");
  }
  return {host, static_cast<std::uint16_t>(std::stoul(port))};
}

namespace {

bool is_loopback(const sockaddr* addr) {
  if (addr->sa_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(addr)->sin_addr.s_addr) >> 24) == 127;
  }
  if (addr->sa_family == AF_INET6) {
    const auto* a6 = &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(a6)) return true;
    if (IN6_IS_ADDR_V4MAPPED(a6)) return a6->s6_addr[12] == 127;
  }
  return false;
}

MHD_Result collect(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* into = static_cast<std::map<std::string, std::string>*>(cls);
  if (into->size() < 64 && key) (*into)[key] = value ? value : "";
  return MHD_YES;
}

}  // namespace

struct HttpServer::Daemon {
  MHD_Daemon* daemon = nullptr;
  ~Daemon() {
    if (daemon) MHD_stop_daemon(daemon);
  }
};

namespace {

MHD_Result answer(void* cls, MHD_Connection* connection, const char* url, const char* method,
                  const char* /*version*/, const char* /*upload_data*/, std::size_t* upload_data_size,
                  void** request_state) {
  auto* handler = static_cast<HttpHandler*>(cls);
  // The first call of a request carries its headers only: answer then.
  if (*request_state == nullptr) {
    static int marker;
    *request_state = &marker;
  }
  HttpResponse response;
  if (std::strcmp(method, MHD_HTTP_METHOD_GET) != 0 && std::strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
    response = {405, "text/plain; charset=utf-8", "only GET and HEAD are served here\n", {{"Allow", "GET, HEAD"}}};
  } else if (*upload_data_size != 0) {
    *upload_data_size = 0;
    response = {400, "text/plain; charset=utf-8", "a request body is not accepted here\n", {}};
  } else {
    HttpRequest request;
    request.path = url ? url : "/";
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND,
                              &collect, &request.query);
    MHD_get_connection_values(connection, MHD_COOKIE_KIND, &collect,
                              &request.cookies);
    if (const char* auth = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION)) {
      request.authorization = auth;
    }
    if (const char* host = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)) {
      request.host = host;
    }
    try {
      response = (*handler)(request);
    } catch (const std::exception& e) {
      response = {500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n", {}};
    }
  }
  MHD_Response* r = MHD_create_response_from_buffer(response.body.size(), response.body.data(),
                                                    MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, response.content_type.c_str());
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  for (const auto& [name, value] : response.headers) MHD_add_response_header(r, name.c_str(), value.c_str());
  const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(response.status), r);
  MHD_destroy_response(r);
  return queued;
}

}  // namespace

HttpServer::HttpServer(const std::string& address, HttpHandler handler) : handler_(std::move(handler)) {
  auto [host, port] = parse_listen_address(address);
  host_ = host;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    throw std::runtime_error("cannot serve metrics on " + address + ": " + gai_strerror(rc));
  }
  std::string error = "no address";
  for (addrinfo* a = found; a && listen_fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 64) == 0) {
      listen_fd_ = fd;
      loopback_ = is_loopback(a->ai_addr);
      sockaddr_storage bound{};
      socklen_t length = sizeof bound;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
      port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    } else {
      error = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) throw std::runtime_error("cannot serve metrics on " + address + ": " + error);
  daemon_ = std::make_unique<Daemon>();
  daemon_->daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC, 0, nullptr, nullptr, &answer, &handler_,
      MHD_OPTION_LISTEN_SOCKET, listen_fd_, MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<std::size_t>(32 * 1024), MHD_OPTION_END);
  if (!daemon_->daemon) {
    ::close(listen_fd_);
    throw std::runtime_error("cannot serve metrics on " + address + ": libmicrohttpd did not start");
  }
}

HttpServer::~HttpServer() {
  daemon_.reset();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

}  // namespace slipway::observe
