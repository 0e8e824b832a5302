// The program's observe endpoint (docs/observe.md): Prometheus text at
// /metrics, the status document at /api/status, events at /api/events, a
// task's log tail at /api/log, and the page at /. Served by the launcher.
//
// Contract: read-only. publish() replaces the status every response is
// made from (the launcher calls it at most once a second); until the first
// publish every route but the page answers 503. The view token (never the
// program's secret) is required for every request when the endpoint is
// bound to a non-loopback address, and for /api/log always; it is accepted
// as "Authorization: Bearer TOKEN", as the cookie slipway_token, or once as
// ?token=TOKEN, which sets that cookie (HttpOnly, SameSite=Strict) and
// redirects to the same path without it. On loopback, a request whose Host
// header names another host is refused (DNS rebinding). Throws
// std::runtime_error (http_server.hpp) when the address cannot be bound.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "slipway/observe/http_server.hpp"
#include "slipway/observe/program_status.hpp"

namespace slipway::observe {

struct ObserveEndpointOptions {
  std::string address = "127.0.0.1:0";
  std::string run_directory;  // events.jsonl and logs/ are read from here
  std::string view_token;     // required: see the contract
  std::string version;        // slipway_build_info
};

class ObserveEndpoint {
 public:
  explicit ObserveEndpoint(ObserveEndpointOptions options);
  ~ObserveEndpoint();

  void publish(std::shared_ptr<const ProgramStatus> status);
  // "http://HOST:PORT/" (a bound wildcard address is shown as this host's name).
  std::string url() const;
  std::uint16_t port() const;
  bool loopback() const;

 private:
  HttpResponse handle(const HttpRequest& request);
  bool authorized(const HttpRequest& request) const;
  std::shared_ptr<const ProgramStatus> status() const;

  ObserveEndpointOptions options_;
  mutable std::mutex mutex_;
  std::shared_ptr<const ProgramStatus> status_;
  std::unique_ptr<HttpServer> server_;  // last: stopped first
};

// Reads RUN/observe-token, or makes it (0600, 32 random bytes as hex) when
// missing; throws std::runtime_error when neither works.
std::string ensure_view_token(const std::string& run_directory);

}  // namespace slipway::observe
