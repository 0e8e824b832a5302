// Gathered replies (Responder::reply_gathered, issue 30): a reply made of
// copied and shared pieces reaches the caller as exactly the bytes of its
// pieces in order, over TCP and shared memory, for payloads on both sides
// of the eager limit and with more pieces than one sendmsg takes (IOV_MAX);
// the shared pieces' owners are let go once the reply has left.
#include <chrono>
#include <future>
#include <mutex>
#include <memory>
#include <thread>
#include <vector>

#include "slipway/channels/gathered.hpp"
#include "transports.hpp"

using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

namespace {

// A reply of `pieces` parts of growing sizes, every other one shared (its
// own owner) and the rest copied; `expected` gets their concatenation.
Gathered make_reply(std::size_t pieces, std::size_t large, Bytes& expected,
                    std::vector<std::weak_ptr<const Bytes>>& owners) {
  Gathered out;
  for (std::size_t i = 0; i < pieces; ++i) {
    const std::size_t size = i == pieces / 2 ? large : (i * 37) % 300;
    Bytes part = pattern(size, static_cast<unsigned>(i));
    expected.insert(expected.end(), part.begin(), part.end());
    if (i % 2 == 0) {
      out.append_copy(part);
      continue;
    }
    auto owner = std::make_shared<const Bytes>(std::move(part));
    owners.push_back(owner);
    out.append_shared(ByteView(*owner), owner);
  }
  return out;
}

}  // namespace

TEST_CASE("a gathered reply delivers the exact bytes of all its pieces", "[channels][rpc][gathered]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  std::mutex mutex;  // these outlive the server, whose handler uses them
  std::vector<std::weak_ptr<const Bytes>> owners;
  Endpoint server(options_for(tls, "server"));
  // The request says how many pieces and how large the middle one is.
  server.register_async_method("gather", [&](ByteView request, Responder responder) {
    const std::string spec = to_string(request);
    const auto comma = spec.find(',');
    const std::size_t pieces = std::stoul(spec.substr(0, comma));
    const std::size_t large = std::stoul(spec.substr(comma + 1));
    Bytes expected;
    Gathered reply;
    {
      std::lock_guard lock(mutex);
      reply = make_reply(pieces, large, expected, owners);
    }
    CHECK(reply.size() == expected.size());
    CHECK(reply.flatten() == expected);
    responder.reply_gathered(std::move(reply));
  });
  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(server.address(), "server.0");

  struct Case {
    std::size_t pieces, large;
  };
  for (const Case c : {Case{1, 0}, Case{3, 100}, Case{5, 16 * 1024 + 1}, Case{9, 64 * 1024},
                       Case{3, 1 << 20}, Case{2500, 40 * 1024}}) {
    INFO(c.pieces << " pieces, the middle one " << c.large << " bytes");
    Bytes expected;
    std::vector<std::weak_ptr<const Bytes>> unused;
    make_reply(c.pieces, c.large, expected, unused);
    const std::string spec = std::to_string(c.pieces) + "," + std::to_string(c.large);
    CHECK(handle.call("gather", to_bytes(spec)) == expected);
  }

  // Several at once: their pieces share sendmsg calls, cut at IOV_MAX.
  std::vector<std::future<Bytes>> replies;
  Bytes expected;
  std::vector<std::weak_ptr<const Bytes>> unused;
  make_reply(1500, 40 * 1024, expected, unused);
  for (int i = 0; i < 6; ++i) replies.push_back(handle.call_async("gather", to_bytes("1500,40960")));
  for (auto& reply : replies) CHECK(reply.get() == expected);

  // Every shared piece's owner was let go once its reply had left.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  auto held = [&] {
    std::lock_guard lock(mutex);
    std::size_t n = 0;
    for (const auto& owner : owners) n += owner.expired() ? 0 : 1;
    return n;
  };
  while (held() > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  CHECK(held() == 0);
}
