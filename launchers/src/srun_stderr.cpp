// The steps' sruns' standard error: passed on, Slurm's lines kept (see header).
#include "slipway/launch/srun_stderr.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <system_error>


namespace slipway::launch {
namespace {

// What one turn of the loop reads from one srun at most, so that a step
// writing without pause cannot hold the loop.
constexpr std::size_t kTurnBytes = 1 << 20;

}  // namespace

std::string SrunMessages::feed(std::string_view bytes) {
  std::string out;
  partial_.append(bytes);
  std::size_t start = 0;
  for (std::size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(partial_.data() + start, nl - start);
    keep_if_slurms(line);
    out.append(line).push_back('\n');
  }
  partial_.erase(0, start);
  if (partial_.size() > kMaxLineBytes) {
    out.append(finish());
  }
  return out;
}

std::string SrunMessages::finish() {
  if (partial_.empty()) return {};
  keep_if_slurms(partial_);
  std::string out = std::move(partial_);
  partial_.clear();
  out.push_back('\n');
  return out;
}

void SrunMessages::keep_if_slurms(std::string_view line) {
  for (std::string_view prefix : {"srun: ", "slurmstepd: "}) {
    if (line.substr(0, prefix.size()) == prefix) {
      kept_.emplace_back(line.substr(0, kKeptLineBytes));
      if (kept_.size() > kKeptLines) kept_.pop_front();
      return;
    }
  }
}

std::string SrunMessages::slurm_lines() const {
  std::string joined;
  for (const auto& line : kept_) joined += (joined.empty() ? "" : "; ") + line;
  return joined;
}

SrunStderr::SrunStderr(base::TerminalStream& forward) : forward_(forward) {}

base::UniqueFd SrunStderr::open() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe for srun's standard error");
  }
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  pending_.reset(fds[0]);
  return base::UniqueFd(fds[1]);
}

void SrunStderr::adopt(pid_t pid) {
  if (pending_) pipes_[pid].read_end = std::move(pending_);
}

void SrunStderr::watch(std::vector<pollfd>& fds) {
  for (const auto& [pid, pipe] : pipes_) {
    if (pipe.read_end) fds.push_back({pipe.read_end.get(), POLLIN, 0});
  }
}

void SrunStderr::watched(const pollfd* fds, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    for (auto& [pid, pipe] : pipes_) {
      if (pipe.read_end.get() == fds[i].fd) {
        drain(pipe, kTurnBytes);
        break;
      }
    }
  }
}

void SrunStderr::drain(Pipe& pipe, std::size_t budget) {
  char buffer[16384];
  while (pipe.read_end && budget > 0) {
    ssize_t n = ::read(pipe.read_end.get(), buffer, std::min(sizeof buffer, budget));
    if (n > 0) {
      budget -= static_cast<std::size_t>(n);
      forward_.write(pipe.messages.feed(std::string_view(buffer, static_cast<std::size_t>(n))));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    // End of file (every writer is gone) or an error: nothing more comes.
    forward_.write(pipe.messages.finish());
    pipe.read_end.reset();
  }
}

std::string SrunStderr::ended(pid_t pid) {
  auto it = pipes_.find(pid);
  if (it == pipes_.end()) return {};
  drain(it->second, SIZE_MAX);
  forward_.write(it->second.messages.finish());
  std::string lines = it->second.messages.slurm_lines();
  pipes_.erase(it);
  return lines;
}

}  // namespace slipway::launch
