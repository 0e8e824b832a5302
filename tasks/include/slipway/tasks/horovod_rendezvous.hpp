// Horovod's gloo rendezvous, served by the agent of replica 0 of a
// framework = "horovod" node on its `horovod_rendezvous` port: the HTTP
// key-value store `horovodrun` would otherwise run (docs/topology.md).
//
// Protocol (as Horovod's HTTPStore speaks it): `PUT /SCOPE/KEY` with a
// Content-Length body stores the value (200); `GET /SCOPE/KEY` answers 200
// with the value or 404; `DELETE /SCOPE/KEY` marks KEY finished in SCOPE:
// for a scope whose size is known (global, local_HOST, cross_LOCALRANK) the
// scope is cleared once that many keys have finished, any other scope
// loses the key. A malformed request gets 400. One request per connection
// (the server closes it after the response, as Horovod's does).
//
// Bounds: request head 8 KiB, value 16 MiB, 256 MiB held in all, 256
// connections, 3 s to send a whole request (then the connection is
// dropped). Like horovodrun's server it has no authentication: anyone who
// can reach the port can read and write the store while the program runs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "slipway/core/plan.hpp"
#include "slipway/base/unique_fd.hpp"

namespace slipway::tasks {

struct HttpRequest {
  std::string method;  // GET, PUT, DELETE
  std::string scope;
  std::string key;
  std::string body;
};

struct HttpParse {
  enum class State { incomplete, complete, bad } state = State::incomplete;
  HttpRequest request;  // when complete
  std::string error;    // when bad
};

inline constexpr std::size_t kHttpMaxHead = 8 * 1024;
inline constexpr std::size_t kHttpMaxValue = 16 * 1024 * 1024;

// Parses one request from the bytes received so far (bounded as above).
HttpParse parse_http_request(const std::string& received);

// The store behind the server; not thread-safe (the server owns it).
class HorovodKvStore {
 public:
  static constexpr std::size_t kMaxBytes = 256 * 1024 * 1024;
  // Scope sizes Horovod finalizes by (global, local_HOST, cross_N), for
  // the tasks of `node` in `plan`.
  static std::map<std::string, std::uint32_t> scope_sizes(const core::Plan& plan,
                                                          const std::string& node);
  explicit HorovodKvStore(std::map<std::string, std::uint32_t> scope_sizes)
      : sizes_(std::move(scope_sizes)) {}

  // Returns the HTTP status and body of the response.
  std::pair<int, std::string> handle(const HttpRequest& request);

 private:
  std::map<std::string, std::uint32_t> sizes_;
  std::map<std::string, std::map<std::string, std::string>> scopes_;
  std::map<std::string, std::set<std::string>> finished_;
  std::size_t bytes_ = 0;
};

// Serves a store on an already bound TCP socket from a thread of its own
// until destroyed.
class HorovodRendezvousServer {
 public:
  HorovodRendezvousServer(base::UniqueFd bound_socket, HorovodKvStore store);
  ~HorovodRendezvousServer();
  HorovodRendezvousServer(const HorovodRendezvousServer&) = delete;
  HorovodRendezvousServer& operator=(const HorovodRendezvousServer&) = delete;

 private:
  void serve();
  base::UniqueFd listener_;
  base::UniqueFd stop_;
  HorovodKvStore store_;
  std::thread thread_;
};

}  // namespace slipway::tasks
