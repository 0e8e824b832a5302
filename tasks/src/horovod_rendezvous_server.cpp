// The HTTP server in front of Horovod's rendezvous store: one thread, poll
// over the listening socket and at most 256 connections, one request per
// connection (see horovod_rendezvous.hpp).
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <list>
#include <stdexcept>
#include <vector>

#include "slipway/tasks/horovod_rendezvous.hpp"
#include "slipway/base/write_all.hpp"

namespace slipway::tasks {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxConnections = 256;
constexpr auto kRequestTimeout = std::chrono::seconds(3);

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Payload Too Large";
    default: return "Error";
  }
}

struct Connection {
  base::UniqueFd fd;
  std::string received;
  Clock::time_point deadline;
};

void respond(int fd, int status, const std::string& body) {
  // The socket is non-blocking for reads; answer with a blocking write that
  // gives up after the request timeout on a peer that does not read.
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  timeval limit{static_cast<time_t>(kRequestTimeout.count()), 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) +
                     "\r\nContent-Length: " + std::to_string(body.size()) +
                     "\r\nConnection: close\r\n\r\n";
  base::write_all(fd, head + body);
}

}  // namespace

HorovodRendezvousServer::HorovodRendezvousServer(base::UniqueFd bound_socket, HorovodKvStore store)
    : listener_(std::move(bound_socket)),
      stop_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      store_(std::move(store)) {
  if (listen(listener_.get(), 128) != 0) {
    throw std::runtime_error(std::string("horovod rendezvous: listen: ") + std::strerror(errno));
  }
  fcntl(listener_.get(), F_SETFL, fcntl(listener_.get(), F_GETFL) | O_NONBLOCK);
  thread_ = std::thread([this] { serve(); });
}

HorovodRendezvousServer::~HorovodRendezvousServer() {
  std::uint64_t one = 1;
  ssize_t ignored = write(stop_.get(), &one, sizeof one);
  (void)ignored;
  thread_.join();
}

void HorovodRendezvousServer::serve() {
  std::list<Connection> connections;
  for (;;) {
    std::vector<pollfd> fds{{stop_.get(), POLLIN, 0}, {listener_.get(), POLLIN, 0}};
    for (auto& c : connections) fds.push_back({c.fd.get(), POLLIN, 0});
    if (poll(fds.data(), fds.size(), 500) < 0 && errno != EINTR) return;
    if (fds[0].revents & POLLIN) return;
    std::size_t i = 2;
    auto now = Clock::now();
    for (auto it = connections.begin(); it != connections.end(); ++i) {  // fds[i] is *it
      bool done = false;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buffer[65536];
        ssize_t n = read(it->fd.get(), buffer, sizeof buffer);
        if (n <= 0) {
          done = n == 0 || (errno != EAGAIN && errno != EINTR);
        } else {
          it->received.append(buffer, static_cast<std::size_t>(n));
          HttpParse parsed = parse_http_request(it->received);
          if (parsed.state == HttpParse::State::complete) {
            auto [status, body] = store_.handle(parsed.request);
            respond(it->fd.get(), status, body);
            done = true;
          } else if (parsed.state == HttpParse::State::bad) {
            respond(it->fd.get(), 400, parsed.error + "\n");
            done = true;
          }
        }
      }
      if (!done && now >= it->deadline) done = true;  // too slow: drop it
      it = done ? connections.erase(it) : std::next(it);
    }
    // New connections last: `fds` has no entry for them yet.
    if (fds[1].revents & POLLIN) {
      while (connections.size() < kMaxConnections) {
        int fd = accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) break;
        connections.push_back({base::UniqueFd(fd), {}, Clock::now() + kRequestTimeout});
      }
    }
  }
}

}  // namespace slipway::tasks
