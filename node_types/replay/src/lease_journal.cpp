// The lease journal of a client (lease_journal.hpp).
#include "lease_journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "slipway/core/contract.hpp"

namespace slipway::replay {

namespace {
constexpr const char* kDirectory = "replay-leases";
constexpr const char* kHeader = "slipway-replay-leases 1\n";

// A name that is one plain file name.
bool plain(const std::string& name) {
  return !name.empty() && name.front() != '.' && name.find('/') == std::string::npos && name.size() <= 255;
}

// The directory `name` under `parent`, made 0700 if missing, never through a link.
base::UniqueFd subdirectory(int parent, const char* name) {
  if (::mkdirat(parent, name, 0700) != 0 && errno != EEXIST) return {};
  return base::UniqueFd(::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

std::string hex(const std::byte* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < size; ++i) {
    const auto b = std::to_integer<unsigned>(data[i]);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

bool unhex(const std::string& text, std::string& out) {
  if (text.size() % 2 != 0) return false;
  out.clear();
  for (std::size_t i = 0; i < text.size(); i += 2) {
    unsigned value = 0;
    if (std::sscanf(text.c_str() + i, "%2x", &value) != 1) return false;
    out.push_back(static_cast<char>(value));
  }
  return true;
}

// Reads a journal file of `directory`: a regular file of at most max bytes.
std::string read_journal(int directory, const std::string& name, std::size_t max) {
  base::UniqueFd fd(::openat(directory, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > max) {
    return {};
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}
}  // namespace

std::unique_ptr<LeaseJournal> LeaseJournal::open(const std::string& replay_node, const Caller& caller) {
  const char* run_dir = std::getenv(core::env::kRunDir);
  if (run_dir == nullptr || *run_dir == '\0' || !plain(caller.node) || !plain(replay_node)) return nullptr;
  base::UniqueFd run(::open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  base::UniqueFd leases = run ? subdirectory(run.get(), kDirectory) : base::UniqueFd();
  base::UniqueFd directory = leases ? subdirectory(leases.get(), replay_node.c_str()) : base::UniqueFd();
  if (!directory) {
    std::fprintf(stderr, "slipway replay: no lease journal under %s/%s/%s (%s): a relaunched task's "
                 "predecessor's leases will return when they expire\n", run_dir, kDirectory, replay_node.c_str(),
                 std::strerror(errno));
    return nullptr;
  }
  const std::string task = caller.node + "." + std::to_string(caller.replica);
  char client[17];
  std::snprintf(client, sizeof client, "%016llx", static_cast<unsigned long long>(caller.client_id));
  const std::string file = task + "." + std::to_string(caller.attempt) + "." + client;
  return std::unique_ptr<LeaseJournal>(new LeaseJournal(std::move(directory), task, caller.attempt, file));
}

LeaseJournal::LeaseJournal(base::UniqueFd directory, std::string task, std::uint32_t attempt, std::string file)
    : directory_(std::move(directory)), task_(std::move(task)), attempt_(attempt), file_(std::move(file)) {}

LeaseJournal::~LeaseJournal() {
  if (fd_ && directory_ && held_.empty()) ::unlinkat(directory_.get(), file_.c_str(), 0);
}

std::string LeaseJournal::format(const std::vector<Entry>& entries) {
  std::string out = kHeader;
  for (const auto& entry : entries) {
    out += std::to_string(entry.shard) + " " + std::to_string(entry.lease.key) + " " +
           hex(entry.lease.token.data(), entry.lease.token.size()) + " " +
           hex(reinterpret_cast<const std::byte*>(entry.table.data()), entry.table.size()) + "\n";
  }
  return out;
}

std::vector<LeaseJournal::Entry> LeaseJournal::parse(const std::string& text) {
  std::vector<Entry> entries;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line + "\n" != kHeader) return entries;
  // A line cut short by a crash has no newline: getline then hits the end.
  while (std::getline(in, line) && !in.eof()) {
    std::istringstream fields(line);
    Entry entry;
    std::string token, table;
    if (!(fields >> entry.shard >> entry.lease.key >> token >> table)) continue;
    std::string raw;
    if (!unhex(token, raw) || raw.size() != entry.lease.token.size() || !unhex(table, entry.table)) continue;
    std::memcpy(entry.lease.token.data(), raw.data(), raw.size());
    entries.push_back(std::move(entry));
  }
  return entries;
}

void LeaseJournal::add(const std::vector<Entry>& entries) {
  std::lock_guard lock(mutex_);
  if (!directory_) return;
  for (const auto& entry : entries) held_[entry.lease.key] = entry;
  write_locked();
}

void LeaseJournal::remove(const std::vector<LeaseRef>& leases) {
  std::lock_guard lock(mutex_);
  if (!directory_) return;
  std::size_t removed = 0;
  for (const auto& lease : leases) removed += held_.erase(lease.key);
  if (removed > 0) write_locked();
}

void LeaseJournal::write_locked() {
  if (!fd_) {
    fd_.reset(::openat(directory_.get(), file_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd_) return disable_locked("cannot create");
  }
  std::vector<Entry> entries;
  for (const auto& held : held_) entries.push_back(held.second);
  const std::string text = format(entries);
  if (::ftruncate(fd_.get(), 0) != 0) return disable_locked("cannot write");
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd_.get(), text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return disable_locked("cannot write");
    done += static_cast<std::size_t>(n);
  }
}

void LeaseJournal::disable_locked(const std::string& what) {
  std::fprintf(stderr, "slipway replay: %s the lease journal %s (%s): journal off; a relaunched task's "
               "predecessor's leases will return when they expire\n", what.c_str(), file_.c_str(),
               std::strerror(errno));
  fd_.reset();
  directory_.reset();
}

std::vector<LeaseJournal::Entry> LeaseJournal::take_predecessors() {
  std::lock_guard lock(mutex_);
  std::vector<Entry> entries;
  if (!directory_ || attempt_ == 0) return entries;
  const int listing = ::dup(directory_.get());
  DIR* dir = listing < 0 ? nullptr : ::fdopendir(listing);
  if (dir == nullptr) {
    if (listing >= 0) ::close(listing);
    return entries;
  }
  ::rewinddir(dir);
  std::vector<std::string> earlier;
  const std::string prefix = task_ + ".";
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (!name.starts_with(prefix)) continue;
    // NODE.REPLICA.ATTEMPT.CLIENT: the attempt between the prefix and the last dot.
    const std::string rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || rest.find('.', dot + 1) != std::string::npos) continue;
    char* end = nullptr;
    const unsigned long attempt = std::strtoul(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dot || attempt >= attempt_) continue;
    earlier.push_back(name);
  }
  ::closedir(dir);
  for (const auto& name : earlier) {
    for (auto& entry : parse(read_journal(directory_.get(), name, kMaxFileBytes))) entries.push_back(std::move(entry));
    ::unlinkat(directory_.get(), name.c_str(), 0);
  }
  return entries;
}

}  // namespace slipway::replay
