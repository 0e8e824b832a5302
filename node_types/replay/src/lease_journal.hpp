// A client's lease journal: the work-table leases one client object holds
// (shard, table, key and token), kept in a private file of the run
// directory so that the task's next attempt, relaunched after a crash, can
// return them at once with their tokens instead of waiting for them to
// expire (docs/replay.md, "Lease journals"; python/slipway/replay.py keeps
// the same files).
//
// Contract: open() gives a journal only inside slipway (SLIPWAY_RUN_DIR and
// SLIPWAY_NODE set, names that are plain file names); nothing is created,
// read or removed through a symbolic link; files are 0600 in 0700
// directories. The journal is best effort: a file-system error disables it
// (said once on stderr) and never fails a lease. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "slipway/base/unique_fd.hpp"
#include "slipway/replay/types.hpp"

namespace slipway::replay {

class LeaseJournal {
 public:
  struct Entry {
    std::uint32_t shard = 0;
    std::string table;
    LeaseRef lease;
  };

  // Files larger than this are not read back.
  static constexpr std::size_t kMaxFileBytes = std::size_t{16} << 20;

  // The journal of client `client_id` of this task for replay node
  // `replay_node`; nullptr outside slipway.
  static std::unique_ptr<LeaseJournal> open(const std::string& replay_node, const Caller& caller);
  // Removes this client's file unless it still holds leases (the task's
  // next attempt returns those).
  ~LeaseJournal();
  LeaseJournal(const LeaseJournal&) = delete;
  LeaseJournal& operator=(const LeaseJournal&) = delete;

  void add(const std::vector<Entry>& entries);
  void remove(const std::vector<LeaseRef>& leases);
  // The leases journaled by earlier attempts of this task (node and
  // replica), their files removed.
  std::vector<Entry> take_predecessors();

  // The file format (one line each: "SHARD KEY TOKENHEX TABLEHEX"), for
  // tests and the Python client's equivalent.
  static std::string format(const std::vector<Entry>& entries);
  static std::vector<Entry> parse(const std::string& text);

 private:
  LeaseJournal(base::UniqueFd directory, std::string task, std::uint32_t attempt, std::string file);
  void write_locked();
  void disable_locked(const std::string& what);

  std::mutex mutex_;
  base::UniqueFd directory_;
  std::string task_;  // NODE.REPLICA
  std::uint32_t attempt_;
  std::string file_;  // NODE.REPLICA.ATTEMPT.CLIENT in directory_
  base::UniqueFd fd_;
  std::map<Key, Entry> held_;
};

}  // namespace slipway::replay
