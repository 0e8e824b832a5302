// Courier RPC between endpoints on loopback, over TCP and shared memory:
// blocking, future and one-way calls, payloads from 0 B to beyond UCX's
// rendezvous threshold, callee errors, unknown methods, timeouts.
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

TEST_CASE("a call returns the callee's reply, for every payload size", "[channels][rpc]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  Endpoint server(options_for(tls, "server"));
  server.register_method("echo", [](ByteView request) { return to_bytes(request); });
  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(server.address(), "server.0");

  for (std::size_t size : {std::size_t{0}, std::size_t{8}, std::size_t{64 * 1024},
                           std::size_t{1} << 20, std::size_t{8} << 20}) {
    INFO("payload " << size << " bytes");
    Bytes request = pattern(size, static_cast<unsigned>(size % 251));
    Bytes reply = handle.call("echo", request);
    CHECK(reply == request);
  }
}
