// The UCX transports the channels integration tests run over on loopback:
// TCP, and shared memory (posix for messages, cma for zero-copy payloads).
#pragma once

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "slipway/channels/endpoint.hpp"

namespace slipway::channels::testing {

// Picks one transport per run of a test case (a Catch2 generator).
inline std::string any_transport() { return GENERATE(std::string("tcp"), std::string("posix,cma")); }

inline EndpointOptions options_for(const std::string& tls, const std::string& name) {
  EndpointOptions options;
  options.tls = tls;
  // Loopback only: UCX opens an interface for every network device it found
  // when the context was made, and fails the worker ("No such device") when
  // one vanished in between, as the veth pairs of the Slurm test cluster do
  // while system tests run beside these.
  if (tls.find("tcp") != std::string::npos) options.net_devices = "lo";
  options.name = name;
  options.default_timeout = std::chrono::seconds(20);
  return options;
}

inline Bytes pattern(std::size_t size, unsigned seed = 1) {
  Bytes out(size);
  for (std::size_t i = 0; i < size; ++i) {
    out[i] = static_cast<std::byte>((i * 131 + seed * 7) & 0xff);
  }
  return out;
}

// The error of a call that must fail (the test fails if it returns).
inline ChannelError call_error(const Handle& handle, const std::string& method, Bytes request,
                               Timeout timeout = {}) {
  try {
    handle.call(method, std::move(request), timeout);
  } catch (const ChannelError& e) {
    return e;
  }
  FAIL("the call to '" << method << "' should have failed");
  throw std::logic_error("unreachable");
}

}  // namespace slipway::channels::testing
