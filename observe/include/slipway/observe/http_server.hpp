// A read-only HTTP server on libmicrohttpd (Debian's libmicrohttpd): the
// transport of the metrics endpoint and the page (observe_endpoint.hpp).
//
// Contract: the constructor binds `address` ("HOST:PORT", "[V6]:PORT" or
// "PORT"; port 0: any free one) and serves from a thread of its own until
// the destructor stops it. Only GET and HEAD are answered (others: 405);
// request bodies are refused; at most 64 connections, each closed after
// 10 s idle; a request's headers are bounded by libmicrohttpd's memory
// limit (32 KiB). `handler` runs on the server's thread, one request at a
// time, and must not block. Throws std::runtime_error naming the address
// when it cannot be bound.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace slipway::observe {

struct HttpRequest {
  std::string path;                           // without the query
  std::map<std::string, std::string> query;   // decoded
  std::optional<std::string> authorization;   // the Authorization header
  std::string host;                           // the Host header
  std::optional<std::string> cookie(const std::string& name) const;
  std::map<std::string, std::string> cookies;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::map<std::string, std::string> headers;  // extra ones
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  HttpServer(const std::string& address, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const { return port_; }
  // The bound host as given (or "127.0.0.1" when only a port was).
  const std::string& host() const { return host_; }
  // Whether the bound address is a loopback one (127.0.0.0/8, ::1).
  bool loopback() const { return loopback_; }

 private:
  struct Daemon;
  HttpHandler handler_;
  std::string host_;
  std::uint16_t port_ = 0;
  bool loopback_ = true;
  int listen_fd_ = -1;
  std::unique_ptr<Daemon> daemon_;
};

// Splits "HOST:PORT", "[V6]:PORT" or "PORT" (host 127.0.0.1); throws
// std::invalid_argument saying what is wrong.
std::pair<std::string, std::uint16_t> parse_listen_address(const std::string& address);

}  // namespace slipway::observe
