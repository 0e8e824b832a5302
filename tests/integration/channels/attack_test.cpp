// Hostile peers against courier endpoints in this process, on loopback:
// slipway-courier-attack (courier_attack.cpp, its own process, raw UCX or
// raw TCP frames) sends hellos whose caller address is garbage and calls
// from senders that never said hello; a token holder publishes garbage as
// a callee's address in the rendezvous; raw bytes hit the TCP port. Each is refused; the endpoint (this
// process) lives on, keeps nothing for the attacker and serves real peers.
// Over 500 lines, one concern: hostile peers against one endpoint; a split
// would put the attack helpers the cases share in a header of their own.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <random>
#include <thread>

#include "courier_address.hpp"
#include "little_endian.hpp"
#include "rendezvous_program.hpp"
#include "tcp_frame.hpp"
#include "transports.hpp"

extern char** environ;

using namespace slipway;
using namespace slipway::channels;
using namespace slipway::channels::testing;
using namespace std::chrono_literals;

namespace {

std::string hex(ByteView bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::byte b : bytes) {
    out += digits[std::to_integer<unsigned>(b) >> 4];
    out += digits[std::to_integer<unsigned>(b) & 0xf];
  }
  return out;
}

// Runs slipway-courier-attack with `args`; its exit status.
int run_attack(const std::vector<std::string>& args) {
  std::vector<std::string> argv_strings{SLIPWAY_COURIER_ATTACK};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits (up to a generous limit) for what the endpoint's progress thread
// does after the attacker's messages arrived.
template <typename Predicate>
bool eventually(Predicate predicate) {
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

Bytes random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  Bytes out(size);
  for (auto& b : out) b = static_cast<std::byte>(random() & 0xff);
  return out;
}

// Garbage for `real`'s layout: random bytes, `real` cut short, with a byte
// too many, or with its first byte (a format version) changed.
std::vector<Bytes> garbage_like(const Bytes& real) {
  std::vector<Bytes> out;
  for (unsigned seed = 1; seed <= 4; ++seed) out.push_back(random_bytes(1, seed));
  out.push_back(Bytes{std::byte{0x5a}});
  out.push_back(random_bytes(64, 5));
  out.push_back(Bytes(real.begin(), real.begin() + static_cast<std::ptrdiff_t>(real.size() / 2)));
  Bytes longer = real;
  longer.push_back(std::byte{0x80});
  out.push_back(longer);
  Bytes version = real;
  version[0] |= std::byte{0x0f};
  out.push_back(version);
  return out;
}

// Courier addresses a peer must refuse: garbage in place of the whole
// address, and (where the endpoint is reached by UCX) a well-formed courier
// address whose UCX worker address is what UCX 1.13 would abort on or read
// past (one byte's low nibble is the format version; only 0 and 1 exist).
std::vector<Bytes> garbage_addresses(const Bytes& real) {
  std::vector<Bytes> out = garbage_like(real);
  auto parsed = detail::parse_courier_address(real);
  if (parsed.address && parsed.address->tcp_address.empty() && !parsed.address->ucx.empty()) {
    for (const auto& ucx : garbage_like(parsed.address->ucx)) {
      detail::CourierAddress address = *parsed.address;
      address.ucx = ucx;
      out.push_back(detail::encode_courier_address(address));
    }
  }
  return out;
}

// "echo", counting the calls it handles (none may come from an attacker).
void register_counting_echo(Endpoint& callee, std::atomic<int>& handled) {
  callee.register_method("echo", [&handled](ByteView r) {
    ++handled;
    return to_bytes(r);
  });
}

}  // namespace

TEST_CASE("a hello whose caller address is garbage is refused and the callee lives",
          "[channels][attack]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  Endpoint callee(options_for(tls, "callee.0"));
  callee.register_method("echo", [](ByteView r) { return to_bytes(r); });
  const auto garbage = garbage_addresses(callee.address());
  for (const auto& address : garbage) {
    INFO("caller address " << hex(address));
    CHECK(run_attack({"hello", hex(callee.address()), tls, hex(address)}) == 0);
  }
  eventually([&] { return callee.stats().refused_addresses == garbage.size(); });
  CHECK(callee.stats().refused_addresses == garbage.size());
  CHECK(callee.stats().callers == 0);

  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(callee.address(), "callee.0");
  CHECK(to_string(handle.call("echo", to_bytes("still here"))) == "still here");
  CHECK(callee.stats().callers == 1);
}

TEST_CASE("calls from senders that never said hello are dropped unread, nothing kept",
          "[channels][attack]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  Endpoint callee(options_for(tls, "callee.0"));
  std::atomic<int> handled{0};
  register_counting_echo(callee, handled);
  const std::size_t resident_before = resident_bytes();
  // 8,192 calls of 64 KiB from 8 made-up senders: 512 MiB, which the
  // callee once kept as replies queued for callers that never came.
  REQUIRE(run_attack({"calls", hex(callee.address()), tls, "8", "8192", "65536"}) == 0);
  eventually([&] { return callee.stats().calls_without_hello == 8192; });
  CHECK(callee.stats().calls_without_hello == 8192);
  const auto stats = callee.stats();
  CHECK(stats.requests_received == 0);
  CHECK(handled == 0);
  CHECK(stats.callers == 0);
  CHECK(stats.eager_receives == 0);
  CHECK(stats.rendezvous_receives == 0);
  const std::size_t resident_after = resident_bytes();
  INFO("resident " << resident_before << " -> " << resident_after << " bytes");
  CHECK(resident_after < resident_before + (64u << 20));

  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(callee.address(), "callee.0");
  CHECK(handle.call("echo", pattern(64 * 1024)) == pattern(64 * 1024));
  CHECK(callee.stats().requests_received == 1);
}

TEST_CASE("an outsider without the program's secret is refused before its first request is read",
          "[channels][attack]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  // This process's endpoints share a secret of their own (no SLIPWAY_TOKEN
  // here); the attacker's process has another.
  Endpoint callee(options_for(tls, "callee.0"));
  std::atomic<int> handled{0};
  register_counting_echo(callee, handled);
  // It gets a challenge it cannot verify (and so sends no request); a raw
  // one that answers it anyway is refused below.
  CHECK(run_attack({"outsider", hex(callee.address()), tls}) == 0);
  CHECK(handled == 0);
  CHECK(callee.stats().requests_received == 0);
  CHECK(callee.stats().callers == 0);

  Endpoint client(options_for(tls, "client"));
  Handle handle = client.connect(callee.address(), "callee.0");
  CHECK(to_string(handle.call("echo", to_bytes("mine"))) == "mine");
  CHECK(handled == 1);
}

TEST_CASE("a caller that answers another challenge (a recorded proof) is refused",
          "[channels][attack]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  const std::string secret = "0123456789abcdef0123456789abcdef";
  auto options = options_for(tls, "callee.0");
  options.secret = secret;
  Endpoint callee(options);
  std::atomic<int> handled{0};
  register_counting_echo(callee, handled);
  // A proof that answers an earlier challenge, with the right secret: what
  // an eavesdropper could have recorded. No call after it is read.
  CHECK(run_attack({"handshake", hex(callee.address()), tls, hex(to_bytes(secret)), "stale", "3"}) == 5);
  CHECK(handled == 0);
  CHECK(callee.stats().requests_received == 0);
  CHECK(callee.stats().refused_proofs >= 1);
  // The same raw client answering the challenge it got is served: the
  // refusal above is the proof's, not the client's.
  CHECK(run_attack({"handshake", hex(callee.address()), tls, hex(to_bytes(secret)), "fresh", "3"}) == 0);
  CHECK(handled == 3);
}

TEST_CASE("endpoints with different secrets do not talk; with the same one they do",
          "[channels][attack]") {
  auto tls = any_transport();
  INFO("UCX_TLS=" << tls);
  auto callee_options = options_for(tls, "callee.0");
  callee_options.secret = "secret-of-program-a";
  Endpoint callee(callee_options);
  callee.register_method("echo", [](ByteView r) { return to_bytes(r); });
  auto other_options = options_for(tls, "other.0");
  other_options.secret = "secret-of-program-b";
  Endpoint other(other_options);
  Handle refused = other.connect(callee.address(), "callee.0");
  try {
    refused.call("echo", to_bytes("x"), 3s);
    FAIL("a caller with another secret was answered");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::timeout);
    CHECK_THAT(e.what(), Catch::Contains("prove") && Catch::Contains("secret"));
  }
  auto same_options = options_for(tls, "same.0");
  same_options.secret = "secret-of-program-a";
  Endpoint same(same_options);
  Handle served = same.connect(callee.address(), "callee.0");
  CHECK(to_string(served.call("echo", to_bytes("y"), 20s)) == "y");
}

TEST_CASE("a garbage address published in the rendezvous fails calls, never the caller",
          "[channels][attack]") {
  Program program;
  Endpoint learner(options_for("tcp", "learner.0"), program.directory());
  learner.register_method("step", [](ByteView) { return to_bytes("7"); });
  Endpoint actor(options_for("tcp", "actor.0"), program.directory());
  Handle handle = actor.resolve("learner");
  // Anyone with the program's token can write the key.
  auto writer = rendezvous::Client::connect_observer(program.server.endpoint(), program.token);
  const auto garbage = garbage_addresses(learner.address());
  for (const auto& address : garbage) {
    INFO("published " << hex(address));
    writer->put("ucx/learner/0", to_string(address), rendezvous::Scope::program);
    // The handle sees the new value through its watch; until then a call
    // may still meet the previous garbage, which fails the same way.
    try {
      handle.call("step", {}, 20s);
      FAIL("a call to a garbage address succeeded");
    } catch (const ChannelError& e) {
      CHECK(e.code() == Errc::protocol);
      CHECK_THAT(e.what(), Catch::Contains("learner.0") &&
                               Catch::Contains("rendezvous key ucx/learner/0") &&
                               Catch::Contains("not a valid courier address"));
    }
  }
  CHECK(actor.stats().refused_addresses >= 1);

  // The real learner publishes: the same handle follows it.
  learner.publish("learner", 0);
  CHECK(to_string(handle.call("step", {}, 20s)) == "7");

  // An explicitly given garbage address fails its calls the same way.
  Handle explicit_handle = actor.connect(garbage.front(), "bad.0");
  try {
    explicit_handle.call("step", {}, 20s);
    FAIL("a call to a garbage address succeeded");
  } catch (const ChannelError& e) {
    CHECK(e.code() == Errc::protocol);
    CHECK_THAT(e.what(), Catch::Contains("an address given to connect()"));
  }
}

namespace {

// The TCP ports this process listens on (its sockets in /proc/net/tcp{,6}).
std::set<unsigned> listening_ports() {
  std::set<std::string> inodes;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    auto target = std::filesystem::read_symlink(fd.path(), error).string();
    if (!error && target.rfind("socket:[", 0) == 0) {
      inodes.insert(target.substr(8, target.size() - 9));
    }
  }
  std::set<unsigned> ports;
  for (const char* table : {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the column names
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      if (state != "0A" || !inodes.count(inode)) continue;  // 0A: LISTEN
      ports.insert(std::stoul(local.substr(local.find(':') + 1), nullptr, 16));
    }
  }
  return ports;
}

// A connection to 127.0.0.1:port; -1 when it was refused, -2 when no
// socket could be made (no Catch assertions: the relay thread calls it).
int connect_loopback(unsigned port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -2;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
  ::close(fd);
  return -1;
}

// Connects to 127.0.0.1:port, sends `bytes` and closes.
void send_raw(unsigned port, const Bytes& bytes) {
  int fd = connect_loopback(port);
  REQUIRE(fd != -2);
  if (fd < 0) return;
  [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  ::close(fd);
}

// What an outsider sends to a courier endpoint's TCP ports before anyone
// is authenticated: UCX's TCP magic number and an active-message header of
// 16 MiB (13 bytes that abort UCX 1.13 in tcp_ep.c), courier frame prefixes
// with impossible lengths, a call of 64 MiB cut short, random bytes.
std::vector<Bytes> hostile_streams() {
  std::vector<Bytes> out;
  Bytes ucx_magic(13);
  detail::put_le(ucx_magic.data(), 0xCAFEBABE12345678ULL, 8);
  detail::put_le(ucx_magic.data() + 8, 0, 1);
  detail::put_le(ucx_magic.data() + 9, 16u << 20, 4);
  out.push_back(ucx_magic);
  auto frame = [](std::size_t header_length, std::uint64_t payload_length) {
    auto prefix = detail::encode_frame_prefix(
        detail::FramePrefix{wire::kRequestAm, header_length, payload_length});
    return Bytes(prefix.begin(), prefix.end());
  };
  out.push_back(frame(24, std::uint64_t{1} << 60));
  out.push_back(frame(0xffff, 0));
  // A call of 64 MiB from a sender that never said hello, cut short.
  wire::Encoded header = wire::encode(wire::Header{wire::Kind::call, 0, 0x5eed, 1, "echo"});
  Bytes cut_short = frame(header.size, 64u << 20);
  cut_short.insert(cut_short.end(), header.bytes.begin(), header.bytes.begin() + header.size);
  cut_short.resize(cut_short.size() + 4096, std::byte{0x41});
  out.push_back(cut_short);
  out.push_back(random_bytes(65536, 9));
  return out;
}

}  // namespace

TEST_CASE("bytes from an outsider to an endpoint's TCP port never reach code that aborts on them",
          "[channels][attack]") {
  // "tcp", or the transports UCX_TLS leaves (all but sysv when unset).
  const std::string tls = GENERATE(std::string("tcp"), std::string(""));
  INFO("tls=" << tls);
  const auto before = listening_ports();
  auto options = options_for(tls, "callee.0");
  options.net_devices = "lo";
  Endpoint callee(options);
  std::atomic<int> handled{0};
  register_counting_echo(callee, handled);
  std::vector<unsigned> opened;
  for (unsigned port : listening_ports()) {
    if (!before.count(port)) opened.push_back(port);
  }
  // The courier's own listener, and no UCX TCP interface beside it.
  REQUIRE(opened.size() == 1);
  for (unsigned port : opened) {
    for (const auto& stream : hostile_streams()) send_raw(port, stream);
    // Connections that send nothing, held open: they cannot crowd out callers.
    std::vector<int> idle;
    for (int i = 0; i < 200; ++i) {
      if (int fd = connect_loopback(port); fd >= 0) idle.push_back(fd);
    }
    Endpoint client(options_for(tls, "client"));
    Handle handle = client.connect(callee.address(), "callee.0");
    CHECK(to_string(handle.call("echo", to_bytes("still here"))) == "still here");
    for (int fd : idle) ::close(fd);
  }
  CHECK(handled == 1);
  CHECK(callee.stats().requests_received == 1);
}

namespace {

// Reads exactly `size` bytes; false at the end of the stream.
bool read_exact(int fd, std::byte* out, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::read(fd, out, size);
    if (n <= 0) return false;
    out += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// A relay in front of a callee's TCP port that loses the first frame of the
// first connection it accepts (a caller's hello) and passes on the rest.
class LossyRelay {
 public:
  explicit LossyRelay(std::uint16_t upstream_port) : upstream_port_(upstream_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener_, 4) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { relay(); });
  }
  ~LossyRelay() {
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
  }
  std::uint16_t port() const { return port_; }
  int dropped() const { return dropped_; }

 private:
  void relay() {
    int downstream = ::accept(listener_, nullptr, nullptr);
    if (downstream < 0) return;
    int upstream = connect_loopback(upstream_port_);
    if (upstream >= 0) {
      for (bool first = true;; first = false) {
        std::array<std::byte, detail::kFramePrefixBytes> prefix{};
        if (!read_exact(downstream, prefix.data(), prefix.size())) break;
        auto decoded = detail::decode_frame_prefix(ByteView(prefix), std::uint64_t{1} << 30);
        if (!decoded.prefix) break;
        Bytes rest(decoded.prefix->header_length + decoded.prefix->payload_length);
        if (!read_exact(downstream, rest.data(), rest.size())) break;
        if (first) {
          ++dropped_;
          continue;
        }
        [[maybe_unused]] auto a = ::send(upstream, prefix.data(), prefix.size(), MSG_NOSIGNAL);
        [[maybe_unused]] auto b = ::send(upstream, rest.data(), rest.size(), MSG_NOSIGNAL);
      }
    }
    if (upstream >= 0) ::close(upstream);
    ::close(downstream);
  }

  std::uint16_t upstream_port_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<int> dropped_{0};
  std::thread thread_;
};

}  // namespace

TEST_CASE("a hello lost on a connection that stays up is said again while calls wait",
          "[channels][attack]") {
  Endpoint callee(options_for("tcp", "callee.0"));
  std::atomic<int> handled{0};
  register_counting_echo(callee, handled);
  auto real = detail::parse_courier_address(callee.address());
  REQUIRE(real.address);
  LossyRelay relay(real.address->tcp_port);
  detail::CourierAddress via = *real.address;
  via.tcp_port = relay.port();
  {
    Endpoint client(options_for("tcp", "client"));
    Handle handle = client.connect(detail::encode_courier_address(via), "callee.0");
    // The hello never arrived: the call waits for a challenge that never comes.
    ChannelError lost = call_error(handle, "echo", to_bytes("lost"), 1s);
    CHECK(lost.code() == Errc::timeout);
    CHECK_THAT(lost.what(), Catch::Contains("never answered the hello") &&
                                Catch::Contains("said again every 10 s"));
    CHECK(relay.dropped() == 1);
    // Once the callee would have forgotten that hello (10 s), it is said
    // again on the same connection, and the waiting call is served.
    const auto start = std::chrono::steady_clock::now();
    CHECK(to_string(handle.call("echo", to_bytes("again"), 20s)) == "again");
    CHECK(std::chrono::steady_clock::now() - start < 12s);
  }
  CHECK(handled == 1);
}
