// `slipway top`'s model: the program's status document (docs/observe.md,
// key observe/status) read into rows, with the rates that need two
// documents (CPU% from cpu_seconds, replay inserts/s and samples/s). Pure:
// no terminal, no network, no clock (times come from the documents).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slipway::cli::top {

// The one schema this model reads.
inline constexpr int kStatusSchema = 1;

struct LastExit {
  std::uint32_t replica = 0;
  std::uint32_t attempt = 0;
  std::string status;  // "exit 1", "signal 9 (SIGKILL)", "lost: ..."
  std::int64_t unix_ms = 0;
};

struct TaskRow {
  std::uint32_t replica = 0;
  std::string state;  // pending, running, backoff, succeeded, failed, stopped, idle
  std::string host;
  std::optional<std::int64_t> pid;
  std::uint32_t attempt = 0;
  std::uint32_t restarts = 0;
  std::optional<std::int64_t> epoch;
  std::optional<std::int64_t> started_unix_ms;
  std::optional<double> cpu_seconds;
  std::optional<std::int64_t> rss_bytes;
  std::optional<std::int64_t> usage_unix_ms;  // when cpu_seconds was sampled, if the document says
  std::optional<LastExit> last_exit;
  std::optional<double> cpu_percent;  // from two documents; nullopt until known
};

// Tasks of a node by state. done: succeeded or stopped.
struct StateCounts {
  std::uint32_t running = 0, pending = 0, backoff = 0, failed = 0, done = 0, idle = 0;
};

struct NodeRow {
  std::size_t order = 0;  // topology order
  std::string name;
  std::string type;
  std::uint32_t live = 0;  // live replicas now
  std::uint32_t min = 0, max = 0;
  bool elastic = false, world = false, daemon = false;
  std::optional<std::int64_t> epoch;  // nullopt: not a world node
  std::uint32_t restarts = 0;
  StateCounts counts;
  std::optional<LastExit> last_exit;
  std::optional<double> cpu_seconds;
  std::optional<std::int64_t> rss_bytes;
  std::optional<double> cpu_percent;  // sum of its tasks' known CPU%
  std::vector<TaskRow> tasks;
};

struct ReplayRow {
  std::string task;  // NODE.REPLICA of the shard
  std::string table;
  std::int64_t unix_ms = 0;
  std::optional<std::int64_t> last_checkpoint_unix_ms;
  std::int64_t size = 0, max_size = 0;
  std::int64_t inserted_total = 0, sampled_total = 0;
  std::int64_t parked_inserts = 0, parked_samples = 0;
  double limiter_blocked_seconds = 0;
  std::optional<double> inserts_per_second, samples_per_second;
};

struct EventRow {
  std::int64_t seq = 0;
  std::string time;  // ISO 8601 UTC, as in events.jsonl
  std::string kind;
  std::string node;  // empty for program-wide events
  std::optional<std::int64_t> replica, attempt, epoch;
  std::string host;
  std::string cause;
};

struct Status {
  int schema = 0;
  std::string program;
  std::string run;
  std::uint32_t resume = 0;
  std::int64_t unix_ms = 0;
  std::int64_t started_unix_ms = 0;
  std::string state;  // running, stopping, finished
  std::string stop_reason;
  std::optional<std::string> metrics;
  std::string endpoint;
  std::uint32_t members = 0;
  std::vector<NodeRow> nodes;
  std::vector<ReplayRow> replay;
  std::vector<EventRow> events;  // oldest first
};

// Reads a status document. Throws std::runtime_error naming the field that
// is wrong ("nodes[1].tasks[0].rss_bytes: not a number") or the schema it
// does not know. Missing optional fields and nulls read as unknown.
Status parse_status(std::string_view text);

// A counter's rate from its samples over a window of time: a counter that
// goes down (a restarted process) starts over.
class RateMeter {
 public:
  explicit RateMeter(std::int64_t window_ms) : window_ms_(window_ms) {}
  // A sample at t_ms; one not newer than the last is ignored. With
  // `every_sample` false (the time is when the sample was seen, not when it
  // was taken), only changes are kept, and an unchanged value once per
  // window, so that the lag between taking and seeing a sample does not
  // bias the rate.
  void add(std::int64_t t_ms, double value, bool every_sample);
  // Per second over the samples kept; nullopt before two samples.
  std::optional<double> per_second() const;
  void reset() { samples_.clear(); }

 private:
  struct Sample {
    std::int64_t t_ms;
    double value;
  };
  std::int64_t window_ms_;
  std::vector<Sample> samples_;  // oldest first; a handful (the window's)
};

// The newest status document with the rates of its counters.
class Model {
 public:
  // Takes a document as fetched. Returns false (nothing changed) when it
  // is the same text as the last one; throws as parse_status does (the
  // model keeps its last good document).
  bool update(std::string text);
  bool has_status() const { return has_status_; }
  const Status& status() const { return status_; }

 private:
  struct TaskMeter {
    std::uint32_t attempt = 0;
    RateMeter cpu;
  };
  struct TableMeter {
    RateMeter inserts, samples;
  };
  void compute_rates();

  std::string text_;
  bool has_status_ = false;
  Status status_;
  // Meters of the tasks and tables of the last document (others are
  // dropped): by node, then replica; by TASK/TABLE.
  std::unordered_map<std::string, std::unordered_map<std::uint32_t, TaskMeter>> cpu_;
  std::unordered_map<std::string, TableMeter> tables_;
};

}  // namespace slipway::cli::top
