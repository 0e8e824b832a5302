// `slipway-bench rendezvous`: the rendezvous against torch's TCPStore, in one run.
//  (a) one client doing put+get of a 64-byte value: the blocking pattern
//      TCPStore's Python client uses (the same pattern, side by side), the
//      same calls pipelined through the async API, and a raw TCP ping-pong as
//      the loopback floor of any blocking round trip on this machine;
//  (b) N members (1k, 4k, 16k, 100k) joining, each publishing a 64-byte
//      address (task scope), then one program-wide fence: wall time, the
//      server's CPU per member and the growth of its resident memory per
//      member. The members are carried by emulated agents (--per-agent,
//      default 100 members each), one real authenticated TCP connection per
//      agent with a channel per member, as slipway-exec and the launcher
//      carry their tasks; --per-agent 1 gives each member a connection of
//      its own, as before agents shared one. All are multiplexed by one
//      client process (one thread, epoll) speaking the wire protocol
//      directly, from 64 loopback addresses, as agents on many hosts would.
// Every server runs in a process of its own (this binary re-executed with
// --serve), as TCPStore's master does in its peer script.
// Over 500 lines: bench/ keeps one file per benchmark, with its peer (the
// servers it starts and the emulated agents' client are this benchmark's).
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asio.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <time.h>
#include <mutex>
#include <sstream>

#include "bench_registry.hpp"
#include "peers.hpp"
#include "slipway/base/child.hpp"
#include "slipway/base/environment.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/endpoint.hpp"
#include "slipway/rendezvous/frame_reader.hpp"
#include "slipway/rendezvous/server.hpp"
#include "slipway/rendezvous/token.hpp"
#include "slipway/rendezvous/wire.hpp"

namespace base = slipway::base;
namespace rdzv = slipway::rendezvous;
namespace wire = slipway::rendezvous::wire;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A child process: this binary (`slipway-bench rendezvous ARGS`), or
// `program` ARGS when given, with the program's secret in its environment
// (not in argv: ps shows argv), stdin and stdout on pipes. Stopped on
// destruction: its stdin closed, a minute to end by itself, then SIGKILL.
base::Child spawn_child(const std::vector<std::string>& args, const std::string& token,
                        const std::string& program = {}) {
  base::ChildOptions options;
  options.argv = program.empty() ? std::vector<std::string>{"/proc/self/exe", "rendezvous"}
                                 : std::vector<std::string>{program};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.env = base::environment_with({std::string(slipway::core::env::kToken) + "=" + token});
  options.terminate_on_stop = false;
  options.stop_grace = std::chrono::minutes(1);
  return base::Child(std::move(options));
}

// Its next output line; throws when it has ended.
std::string line_of(base::Child& child) {
  if (auto line = child.read_line(std::chrono::minutes(10))) return *line;
  throw std::runtime_error("child process ended early");
}

void send_line_to(base::Child& child, const std::string& text) {
  if (!child.send_line(text)) throw std::runtime_error("child process ended early");
}

// CPU time (user + system) of a process so far, in ms.
double cpu_ms(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string skip;
  for (int i = 0; i < 11; ++i) fields >> skip;  // state .. cmajflt
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double own_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

std::int64_t rss_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

// --serve: a rendezvous server process. Heartbeat budget generous (60 s):
// the simulated members do not heartbeat during the measured seconds.
int serve(const std::vector<std::string>& declares) {
  // stdout is the pipe to the parent; the members' disconnections at
  // teardown are expected, not news.
  spdlog::set_default_logger(spdlog::stderr_color_mt("rendezvous-bench"));
  spdlog::set_level(spdlog::level::err);
  rdzv::ServerOptions o;
  o.token = std::getenv(slipway::core::env::kToken);
  o.miss_budget = 60;
  rdzv::Server server(o);
  for (const auto& d : declares) {
    const auto eq = d.find('=');
    server.declare(d.substr(0, eq), static_cast<std::uint32_t>(std::stoul(d.substr(eq + 1))));
  }
  server.start();
  std::printf("%s\n", server.endpoint().c_str());
  std::fflush(stdout);
  char c;
  while (::read(0, &c, 1) > 0) {
  }
  server.stop();
  return 0;
}

// --echo: the loopback floor, a TCP echo server.
int echo() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  std::printf("127.0.0.1:%u\n", acceptor.local_endpoint().port());
  std::fflush(stdout);
  asio::ip::tcp::socket s = acceptor.accept();
  s.set_option(asio::ip::tcp::no_delay(true));
  char buf[4096];
  asio::error_code ec;
  for (;;) {
    const std::size_t n = s.read_some(asio::buffer(buf), ec);
    if (ec) return 0;
    asio::write(s, asio::buffer(buf, n), ec);
  }
}

// The loopback floor: blocking 80-byte ping-pongs with an echo process.
class PingPong {
 public:
  PingPong() : child_(spawn_child({"--echo"}, "unused")), socket_(io_) {
    const auto ep = rdzv::parse_endpoint(line_of(child_));
    socket_.connect({asio::ip::make_address(ep.host), ep.port});
    socket_.set_option(asio::ip::tcp::no_delay(true));
  }
  ~PingPong() {
    socket_.close();
    child_.stop();
  }
  double round_trips_per_s(int rounds) {
    char msg[80] = {};
    const auto t0 = Clock::now();
    for (int i = 0; i < rounds; ++i) {
      asio::write(socket_, asio::buffer(msg));
      asio::read(socket_, asio::buffer(msg));
    }
    return rounds / seconds_since(t0);
  }

 private:
  base::Child child_;
  asio::io_context io_;
  asio::ip::tcp::socket socket_;
};

// The peer: bench/rendezvous_tcpstore.py --rounds, one round per request.
class TcpStorePeer {
  static std::string peer(const std::string& name) {
    if (auto path = slipway::bench::find_peer(name)) return *path;
    throw std::runtime_error(slipway::bench::missing_peer_message(name));
  }

 public:
  TcpStorePeer() : child_(spawn_child({peer("rendezvous_tcpstore.py"), "--rounds"}, "unused", peer("python3"))) {
    if (line_of(child_) != "ready") throw std::runtime_error("the TCPStore peer did not start");
  }
  ~TcpStorePeer() { child_.stop(); }
  double pairs_per_s(int pairs) {
    send_line_to(child_, std::to_string(pairs));
    double rate = 0;
    std::sscanf(line_of(child_).c_str(), "tcpstore_pairs_per_s=%lf", &rate);
    return rate;
  }

 private:
  base::Child child_;
};

// One slipway client against a server process: blocking put+get, and the same
// pairs through the async API with up to 128 pairs in flight.
class SlipwayPeer {
 public:
  explicit SlipwayPeer(const std::string& token) : server_(spawn_child({"--serve"}, token)) {
    client_ = rdzv::Client::connect(line_of(server_), token, rdzv::Identity{"bench", 0, 0, "", 0});
    for (int i = 0; i < 100; ++i) keys_.push_back("key/" + std::to_string(i));
  }
  ~SlipwayPeer() {
    client_->leave(0);
    client_.reset();
    server_.stop();
  }

  double blocking_pairs_per_s(int pairs) {
    const auto t0 = Clock::now();
    for (int i = 0; i < pairs; ++i) {
      client_->put(keys_[i % 100], value_, rdzv::Scope::program);
      if (client_->get(keys_[i % 100]) != value_) throw std::runtime_error("wrong value");
    }
    return pairs / seconds_since(t0);
  }

  double pipelined_pairs_per_s(int pairs) {
    const int window = 128;
    std::mutex m;
    std::condition_variable cv;
    int in_flight = 0, completed = 0, errors = 0;
    auto done = [&](bool ok) {
      std::lock_guard lock(m);
      errors += !ok;
      --in_flight;
      ++completed;
      if (in_flight <= window || completed == 2 * pairs) cv.notify_one();
    };
    const auto t0 = Clock::now();
    for (int i = 0; i < pairs; ++i) {
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return in_flight < 2 * window; });
        in_flight += 2;
      }
      client_->put_async(keys_[i % 100], value_, rdzv::Scope::program,
                         [&](rdzv::Status st, const std::string&) { done(st == rdzv::Status::ok); });
      client_->get_async(keys_[i % 100], [&](rdzv::Status st, std::optional<std::string> v, const std::string&) {
        done(st == rdzv::Status::ok && v == value_);
      });
    }
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return completed == 2 * pairs; });
    if (errors) throw std::runtime_error("pipelined put/get failed");
    return pairs / seconds_since(t0);
  }

 private:
  base::Child server_;
  std::unique_ptr<rdzv::Client> client_;
  std::vector<std::string> keys_;
  const std::string value_ = std::string(64, 'v');
};

struct SingleClient {
  double tcpstore = 0, blocking = 0, pipelined = 0, floor_round_trips = 0;
};

// Rounds interleave the four measurements so that load from elsewhere on
// the machine hits them alike; each keeps its best round.
SingleClient single_client(int pairs, int rounds, const std::string& token) {
  TcpStorePeer tcpstore;
  SlipwayPeer slipway(token);
  PingPong floor;
  tcpstore.pairs_per_s(200);  // warm up
  slipway.blocking_pairs_per_s(200);
  SingleClient best;
  for (int r = 0; r < rounds; ++r) {
    best.tcpstore = std::max(best.tcpstore, tcpstore.pairs_per_s(pairs));
    best.blocking = std::max(best.blocking, slipway.blocking_pairs_per_s(pairs));
    best.pipelined = std::max(best.pipelined, slipway.pipelined_pairs_per_s(pairs));
    best.floor_round_trips = std::max(best.floor_round_trips, floor.round_trips_per_s(2 * pairs));
  }
  return best;
}

// N members from this one thread (level-triggered epoll, non-blocking
// sockets), carried by emulated agents of `per_agent` members each: one
// connection per agent, as slipway-exec and the launcher hold one for all
// their tasks. An agent connects, answers the challenge, and sends, in one
// write, per member a Hello (in a channel of its own; with one member per
// agent, on the connection itself as a task's own client does), a Put of
// its address and a Fence over the program, then waits for the fences.
// Sockets stay open until the caller has measured the server.
class Swarm {
 public:
  Swarm(const std::string& endpoint, const std::string& token, std::uint32_t n, std::uint32_t per_agent)
      : key_(token), n_(n), per_agent_(std::max<std::uint32_t>(1, per_agent)),
        epoll_(::epoll_create1(EPOLL_CLOEXEC)) {
    const auto ep = rdzv::parse_endpoint(endpoint);
    server_.sin_family = AF_INET;
    server_.sin_port = htons(ep.port);
    ::inet_pton(AF_INET, ep.host.c_str(), &server_.sin_addr);
    agents_.resize((n + per_agent_ - 1) / per_agent_);
  }
  ~Swarm() {
    close();
    ::close(epoll_);
  }

  double run_ms() {
    const auto t0 = Clock::now();
    launch();
    epoll_event events[256];
    while (fenced_ < n_) {
      const int k = ::epoll_wait(epoll_, events, 256, 30000);
      if (k <= 0) throw std::runtime_error("swarm: no progress for 30 s");
      for (int e = 0; e < k; ++e) on_readable(events[e].data.u32);
    }
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  // Reset, not closed: a FIN from this side would leave the sockets in
  // TIME_WAIT for a minute, whose entries slow the kernel's lookups for the
  // next run (68k of them made a 16k run 30 % slower).
  void close() {
    const linger reset{1, 0};
    for (auto& a : agents_) {
      if (a.fd < 0) continue;
      ::setsockopt(a.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
      ::close(a.fd);
      a.fd = -1;
    }
  }

 private:
  struct Agent {
    int fd = -1;
    wire::FrameReader reader{1 << 20};
  };

  // At most 256 connections wait for their challenge at once.
  void launch() {
    const auto agents = static_cast<std::uint32_t>(agents_.size());
    while (connecting_ < 256 && next_ < agents) {
      const std::uint32_t i = next_++;
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      // Agents run on many hosts: spread the connections over 64 source
      // addresses of 127/8, or the kernel's ephemeral-port search for one
      // (source, destination) pair dominates the run (measured: half the
      // CPU at 16k connections), a cost of this one-process client, not of
      // the server.
      const int one = 1;
      ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
      sockaddr_in source{};
      source.sin_family = AF_INET;
      source.sin_addr.s_addr = htonl((127u << 24) | (1u << 16) | ((i % 64) << 8) | 1u);
      if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0) {
        throw std::runtime_error(std::string("swarm: socket/bind: ") + std::strerror(errno));
      }
      if (::connect(fd, reinterpret_cast<sockaddr*>(&server_), sizeof server_) != 0 && errno != EINPROGRESS) {
        throw std::runtime_error(std::string("swarm: connect: ") + std::strerror(errno));
      }
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u32 = i;
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
      agents_[i].fd = fd;
      ++connecting_;
    }
  }

  void on_readable(std::uint32_t i) {
    Agent& a = agents_[i];
    std::uint8_t buf[65536];
    const ssize_t n = ::recv(a.fd, buf, sizeof buf, 0);
    if (n <= 0) throw std::runtime_error("swarm: the server closed agent " + std::to_string(i));
    const bool ok = a.reader.feed(std::span(buf, static_cast<std::size_t>(n)), [&](std::span<const std::uint8_t> body) {
      std::uint32_t channel = 0;
      std::span<const std::uint8_t> inner;
      if (wire::split_channel(body, channel, inner)) body = inner;
      wire::Message msg;
      std::string error;
      if (!wire::decode(body, rdzv::Limits{}, msg, error)) throw std::runtime_error("swarm: " + error);
      if (auto* ch = std::get_if<wire::Challenge>(&msg)) {
        answer(i, *ch);
      } else if (auto* w = std::get_if<wire::Welcome>(&msg)) {
        if (w->status != rdzv::Status::ok) throw std::runtime_error("swarm: join refused: " + w->message);
      } else if (auto* r = std::get_if<wire::Reply>(&msg)) {
        if (r->status != rdzv::Status::ok) throw std::runtime_error("swarm: " + r->message);
        if (r->id == 2) ++fenced_;  // nothing more comes: the socket stays watched until close()
      }
      return true;
    });
    if (!ok) throw std::runtime_error("swarm: " + a.reader.error());
  }

  // Appends `m` for `channel` (0: the connection itself) to out_.
  void put(std::uint32_t channel, const wire::Message& m) {
    if (channel == 0) return wire::encode(m, out_);
    frame_.clear();
    wire::encode(m, frame_);
    wire::wrap_in_channel(channel, frame_, out_);
  }

  void answer(std::uint32_t i, const wire::Challenge& ch) {
    --connecting_;
    launch();
    out_.clear();
    const std::uint32_t first = i * per_agent_;
    const std::uint32_t count = std::min(per_agent_, n_ - first);
    if (per_agent_ > 1) {
      wire::Hello agent;
      agent.role = wire::Role::observer;
      agent.client_nonce[0] = static_cast<std::uint8_t>(i);
      agent.client_nonce[1] = static_cast<std::uint8_t>(i >> 8);
      agent.mac = wire::client_mac(key_, ch.server_nonce, agent);
      wire::encode(agent, out_);
    }
    for (std::uint32_t k = 0; k < count; ++k) {
      const std::uint32_t member = first + k;
      const std::uint32_t channel = per_agent_ > 1 ? k + 1 : 0;
      wire::Hello hello;
      hello.identity = rdzv::Identity{"m", member, 0, "bench", ::getpid()};
      hello.client_nonce[0] = static_cast<std::uint8_t>(member);
      hello.client_nonce[1] = static_cast<std::uint8_t>(member >> 8);
      hello.client_nonce[2] = static_cast<std::uint8_t>(member >> 16);
      hello.mac = wire::client_mac(key_, ch.server_nonce, hello, channel);
      put(channel, hello);
      put(channel, wire::Put{1, rdzv::Scope::task, "addr/m/" + std::to_string(member) + "/p", std::string(64, 'a')});
      put(channel, wire::Fence{2, "boot", rdzv::MemberSet::program(), false, "", 0});
    }
    std::size_t sent = 0;
    while (sent < out_.size()) {
      const ssize_t w = ::send(agents_[i].fd, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
      if (w > 0) {
        sent += static_cast<std::size_t>(w);
      } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        pollfd p{agents_[i].fd, POLLOUT, 0};
        ::poll(&p, 1, 1000);
      } else {
        throw std::runtime_error("swarm: write failed");
      }
    }
  }

  rdzv::HmacKey key_;
  std::uint32_t n_;
  std::uint32_t per_agent_;
  int epoll_;
  sockaddr_in server_{};
  std::vector<Agent> agents_;
  std::string out_, frame_;
  std::uint32_t next_ = 0, connecting_ = 0, fenced_ = 0;
};

struct JoinFence {
  double ms = 0;
  double bytes_per_member = 0;
  double server_cpu_ms = 0;   // the server process's CPU time during the run
  double members_cpu_ms = 0;  // the simulated members' (this process's)
};

JoinFence join_fence(std::uint32_t n, std::uint32_t per_agent, const std::string& token) {
  base::Child server = spawn_child({"--serve", "m=" + std::to_string(n)}, token);
  const std::string endpoint = line_of(server);
  const std::int64_t before = rss_bytes(server.pid());
  Swarm swarm(endpoint, token, n, per_agent);
  JoinFence out;
  const double server_cpu = cpu_ms(server.pid()), own_cpu = own_cpu_ms();
  out.ms = swarm.run_ms();
  out.server_cpu_ms = cpu_ms(server.pid()) - server_cpu;
  out.members_cpu_ms = own_cpu_ms() - own_cpu;
  out.bytes_per_member = static_cast<double>(rss_bytes(server.pid()) - before) / n;
  swarm.close();
  server.stop();
  return out;
}

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

void raise_fd_limit() {
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &rl);
}

int run(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "--serve") return serve({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "--echo") return echo();
  int pairs = 10000;
  int rounds = 5;
  std::vector<std::uint32_t> sizes = {1000, 4000, 16000, 100000};
  std::uint32_t per_agent = 100;  // members per emulated agent (one connection each)
  bool with_peer = true;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--pairs" && i + 1 < args.size()) pairs = std::stoi(args[++i]);
    if (args[i] == "--quick") pairs = 2000, rounds = 2, sizes = {1000};
    if (args[i] == "--rounds" && i + 1 < args.size()) rounds = std::max(1, std::stoi(args[++i]));
    if (args[i] == "--members-only") with_peer = false;
    if (args[i] == "--per-agent" && i + 1 < args.size()) {
      per_agent = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::stoul(args[++i])));
    }
    if (args[i] == "--sizes" && i + 1 < args.size()) {
      sizes.clear();
      std::istringstream list(args[++i]);
      for (std::string n; std::getline(list, n, ',');) sizes.push_back(static_cast<std::uint32_t>(std::stoul(n)));
    }
  }
  raise_fd_limit();
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  const std::string token = rdzv::generate_token();

  // The summary line: the two headline figures first, then the rest.
  std::string head_ratio, head_16k;
  std::ostringstream summary;
  if (with_peer) {
    std::printf("(a) one client, put+get of a 64-byte value, best of %d interleaved rounds of %d pairs,\n"
                "    each server in a process of its own\n",
                rounds, pairs);
    const SingleClient r = single_client(pairs, rounds, token);
    std::printf("  torch TCPStore (python, blocking):  %10.0f pairs/s\n", r.tcpstore);
    std::printf("  slipway client, blocking:           %10.0f pairs/s  (x%.2f)\n", r.blocking,
                r.blocking / r.tcpstore);
    std::printf("  slipway client, pipelined (async):  %10.0f pairs/s  (x%.2f)\n", r.pipelined,
                r.pipelined / r.tcpstore);
    std::printf("  raw TCP ping-pong (loopback floor): %10.0f round trips/s = %.0f blocking pairs/s at best (x%.2f)\n",
                r.floor_round_trips, r.floor_round_trips / 2, r.floor_round_trips / 2 / r.tcpstore);
    head_ratio = "tcpstore_ratio=" + fixed2(r.pipelined / r.tcpstore);
    summary << " blocking_ratio=" << fixed2(r.blocking / r.tcpstore);
    summary << " loopback_floor_ratio=" << fixed2(r.floor_round_trips / 2 / r.tcpstore);
    summary << " tcpstore_pairs_per_s=" << static_cast<long>(r.tcpstore);
    summary << " blocking_pairs_per_s=" << static_cast<long>(r.blocking);
    summary << " pipelined_pairs_per_s=" << static_cast<long>(r.pipelined);
  }

  std::printf("(b) N members join, publish a 64-byte address, one program-wide fence\n");
  std::printf("    (agents of %u members, one authenticated connection each, all from one process;\n"
              "    fd limit %llu per process)\n",
              per_agent, static_cast<unsigned long long>(rl.rlim_cur));
  double bytes_per_member = 0, cpu_us_per_member = 0;
  for (std::uint32_t n : sizes) {
    const std::uint32_t agents = (n + per_agent - 1) / per_agent;
    if (agents + 64 > rl.rlim_cur) {
      std::printf("  N=%u: skipped, needs %u file descriptors per process (raise `ulimit -Hn`)\n", n,
                  agents + 64);
      summary << " join_fence_" << n / 1000 << "k_ms=n/a";
      continue;
    }
    const JoinFence r = join_fence(n, per_agent, token);
    std::printf("  N=%-6u over %5u agents %8.1f ms   cpu: server %6.0f ms (%.1f us/member), members %6.0f ms   "
                "server memory %5.0f bytes/member\n",
                n, agents, r.ms, r.server_cpu_ms, r.server_cpu_ms * 1000.0 / n, r.members_cpu_ms,
                r.bytes_per_member);
    const std::string ms = "join_fence_" + std::to_string(n / 1000) + "k_ms=" + std::to_string(static_cast<long>(r.ms + 0.5));
    if (n == 16000) {
      head_16k = ms;
    } else {
      summary << " " << ms;
    }
    summary << " join_fence_" << n / 1000 << "k_server_cpu_ms=" << static_cast<long>(r.server_cpu_ms + 0.5);
    bytes_per_member = r.bytes_per_member;
    cpu_us_per_member = r.server_cpu_ms * 1000.0 / n;
  }
  // Of the largest size run.
  summary << " server_bytes_per_member=" << static_cast<long>(bytes_per_member);
  summary << " server_cpu_us_per_member=" << fixed2(cpu_us_per_member);
  summary << " members_per_agent=" << per_agent;
  std::string line = head_ratio;
  if (!head_16k.empty()) line += (line.empty() ? "" : " ") + head_16k;
  line += summary.str();
  if (!line.empty() && line[0] == ' ') line.erase(0, 1);
  std::printf("rendezvous: %s\n", line.c_str());
  return 0;
}

}  // namespace

SLIPWAY_BENCHMARK("rendezvous",
                  "put+get vs torch TCPStore; 1k/4k/16k/100k members (agents of 100) join, publish and fence",
                  run);
