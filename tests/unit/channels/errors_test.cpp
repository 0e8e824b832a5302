// Error codes: every code has its own name; UCX statuses map to the codes
// callers act on.
#include <catch2/catch.hpp>

#include <set>

#include "slipway/channels/error.hpp"
#include "slipway/channels/ucx/status.hpp"

using namespace slipway::channels;

TEST_CASE("every error code has a distinct name", "[channels][errors]") {
  std::set<std::string_view> names;
  for (int c = static_cast<int>(Errc::timeout); c <= static_cast<int>(Errc::protocol); ++c) {
    names.insert(to_string(static_cast<Errc>(c)));
  }
  CHECK(names.size() == 13);
  CHECK(names.count("unknown") == 0);
}

TEST_CASE("UCX statuses map to what a caller can act on", "[channels][errors]") {
  CHECK(ucx::errc_for(UCS_ERR_CONNECTION_RESET) == Errc::peer_lost);
  CHECK(ucx::errc_for(UCS_ERR_ENDPOINT_TIMEOUT) == Errc::peer_lost);
  CHECK(ucx::errc_for(UCS_ERR_UNREACHABLE) == Errc::peer_lost);
  CHECK(ucx::errc_for(UCS_ERR_TIMED_OUT) == Errc::timeout);
  CHECK(ucx::errc_for(UCS_ERR_CANCELED) == Errc::closed);
  CHECK(ucx::errc_for(UCS_ERR_EXCEEDS_LIMIT) == Errc::message_too_large);
  CHECK(ucx::errc_for(UCS_ERR_NO_MEMORY) == Errc::transport);
  auto e = ucx::error(UCS_ERR_CONNECTION_RESET, "sending to learner.0");
  CHECK(e.code() == Errc::peer_lost);
  CHECK_THAT(e.what(), Catch::StartsWith("sending to learner.0: "));
  CHECK_NOTHROW(ucx::check(UCS_OK, "fine"));
  CHECK_NOTHROW(ucx::check(UCS_INPROGRESS, "fine"));
  CHECK_THROWS_AS(ucx::check(UCS_ERR_NO_MEMORY, "allocating"), ChannelError);
}
