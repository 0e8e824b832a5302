// Endpoint text forms: host:port and [v6]:port, and the errors for the rest.
#include <catch2/catch.hpp>

#include "slipway/rendezvous/endpoint.hpp"

using namespace slipway::rendezvous;

TEST_CASE("endpoints parse and format", "[rendezvous][endpoint]") {
  CHECK(parse_endpoint("127.0.0.1:4242") == Endpoint{"127.0.0.1", 4242});
  CHECK(parse_endpoint("node-1.cluster:1") == Endpoint{"node-1.cluster", 1});
  CHECK(parse_endpoint("[::1]:65535") == Endpoint{"::1", 65535});
  CHECK(format_endpoint("::1", 80) == "[::1]:80");
  CHECK(format_endpoint("10.0.0.1", 80) == "10.0.0.1:80");
}

TEST_CASE("bad endpoints say what is wrong", "[rendezvous][endpoint]") {
  for (const char* bad : {"", "host", "host:", "host:0", "host:65536", "host:12x", "::1:80",
                          "[::1]", "[::1:80", ":80", "[]:80"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_endpoint(bad), std::invalid_argument);
  }
  CHECK_THROWS_WITH(parse_endpoint("::1:80"), Catch::Contains("brackets"));
}
