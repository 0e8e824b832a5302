// `slipway top`'s frame as lines of text (see top_view.hpp).
#include "top_view.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>

namespace slipway::cli::top {
namespace {

// Rows a section gets before the node table takes what is left.
constexpr std::size_t kReplayRows = 6;
constexpr std::size_t kEventRows = 6;
constexpr std::size_t kMinTableRows = 3;

std::string format(const char* fmt, auto... args) {
  char buffer[128];
  const int n = std::snprintf(buffer, sizeof buffer, fmt, args...);
  return std::string(buffer, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof buffer) - 1)));
}

// One column: its title, width and alignment; the last column of a table
// takes what is left of the line.
struct Column {
  const char* title;
  std::size_t width;
  bool right = false;
};

std::string cell(const std::string& value, std::size_t width, bool right) {
  if (value.size() >= width) return value.substr(0, width);
  const std::string fill(width - value.size(), ' ');
  return right ? fill + value : value + fill;
}

std::string row_text(const std::vector<Column>& columns, const std::vector<std::string>& values) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) line += ' ';
    if (i + 1 == columns.size()) line += values[i];
    else line += cell(values[i], columns[i].width, columns[i].right);
  }
  return line;
}

std::string heading_text(const std::vector<Column>& columns) {
  std::vector<std::string> titles;
  for (const auto& c : columns) titles.emplace_back(c.title);
  return row_text(columns, titles);
}

// A width for a column of names: the longest, within [title, cap].
template <typename Range, typename F>
std::size_t name_width(const Range& rows, const char* title, std::size_t cap, F&& name_of) {
  std::size_t w = std::char_traits<char>::length(title);
  for (const auto& r : rows) w = std::max(w, name_of(r).size());
  return std::min(w, cap);
}

std::string optional_number(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

std::string cpu_text(const std::optional<double>& percent) {
  if (!percent) return "-";
  return *percent < 100 ? format("%.1f", *percent) : format("%.0f", *percent);
}

std::string bytes_text(const std::optional<std::int64_t>& bytes) {
  return bytes ? human_bytes(*bytes) : "-";
}

std::string rate_text(const std::optional<double>& rate) {
  return rate ? human_count(*rate) : "-";
}

std::string exit_text(const std::optional<LastExit>& e, bool by_attempt, std::int64_t now_ms) {
  if (!e) return "-";
  std::string who = by_attempt ? "a" + std::to_string(e->attempt) : "r" + std::to_string(e->replica);
  std::string text = who + " " + e->status;
  if (e->unix_ms > 0 && now_ms >= e->unix_ms) text += ", " + ago((now_ms - e->unix_ms) / 1000) + " ago";
  return text;
}

// "2026-11-28T12:00:00.123Z" as HH:MM:SS at `offset_s` east of UTC; the text
// itself when it does not read so.
std::string event_time(const std::string& iso, long offset_s) {
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6) return iso;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  const std::time_t t = timegm(&tm) + offset_s;
  std::tm local{};
  gmtime_r(&t, &local);
  return format("%02d:%02d:%02d", local.tm_hour, local.tm_min, local.tm_sec);
}

double sort_value(SortKey key, std::uint32_t restarts, const std::optional<double>& cpu,
                  const std::optional<std::int64_t>& rss) {
  switch (key) {
    case SortKey::order: return 0;
    case SortKey::restarts: return restarts;
    case SortKey::cpu: return cpu.value_or(-1);
    case SortKey::rss: return rss ? static_cast<double>(*rss) : -1;
  }
  return 0;
}

bool in_filter(const ViewState& view, const std::string& node) {
  return view.filter.empty() || view.filter == node;
}

// A section's lines before they are fitted: its heading, its rows, and
// which row is selected (tables the keys move in).
struct Section {
  std::vector<Line> head;  // blank line, heading...
  std::vector<Line> rows;
  std::optional<std::size_t> selected;
};

Section node_section(const Status& status, const ViewState& view, const std::vector<const NodeRow*>& nodes) {
  const std::size_t name_w = name_width(nodes, "NODE", 20, [](const NodeRow* n) -> const std::string& { return n->name; });
  const std::vector<Column> columns{{"NODE", name_w},      {"TYPE", 7},         {"LIVE", 4, true},
                                    {"MIN:MAX", 7, true},  {"RUN", 4, true},    {"PEND", 4, true},
                                    {"BACK", 4, true},     {"FAIL", 4, true},   {"DONE", 4, true},
                                    {"RESTARTS", 8, true}, {"EPOCH", 5, true},  {"CPU%", 6, true},
                                    {"RSS", 7, true},      {"LAST EXIT", 0}};
  Section s;
  s.head.push_back({heading_text(columns), Line::Style::heading});
  for (const NodeRow* n : nodes) {
    if (n->name == view.selected_node && view.filter.empty()) s.selected = s.rows.size();
    s.rows.push_back({row_text(columns, {n->name, n->type, std::to_string(n->live),
                                         std::to_string(n->min) + ":" + std::to_string(n->max),
                                         std::to_string(n->counts.running), std::to_string(n->counts.pending),
                                         std::to_string(n->counts.backoff), std::to_string(n->counts.failed),
                                         std::to_string(n->counts.done), std::to_string(n->restarts),
                                         optional_number(n->epoch), cpu_text(n->cpu_percent),
                                         bytes_text(n->rss_bytes), exit_text(n->last_exit, false, status.unix_ms)})});
  }
  if (view.filter.empty() && !s.rows.empty() && !s.selected) s.selected = 0;
  return s;
}

Section task_section(const Status& status, const ViewState& view, const std::vector<const TaskRow*>& tasks) {
  const std::size_t host_w = name_width(tasks, "HOST", 24, [](const TaskRow* t) -> const std::string& { return t->host; });
  const std::vector<Column> columns{{"REPLICA", 7, true}, {"HOST", host_w},    {"STATE", 9},
                                    {"ATTEMPT", 7, true}, {"EPOCH", 5, true},  {"CPU%", 6, true},
                                    {"RSS", 7, true},     {"LAST EXIT", 0}};
  Section s;
  s.head.push_back({""});
  s.head.push_back({heading_text(columns), Line::Style::heading});
  for (const TaskRow* t : tasks) {
    if (view.selected_replica && *view.selected_replica == t->replica) s.selected = s.rows.size();
    s.rows.push_back({row_text(columns, {std::to_string(t->replica), t->host.empty() ? "-" : t->host, t->state,
                                         std::to_string(t->attempt), optional_number(t->epoch),
                                         cpu_text(t->cpu_percent), bytes_text(t->rss_bytes),
                                         exit_text(t->last_exit, true, status.unix_ms)})});
  }
  if (!s.rows.empty() && !s.selected) s.selected = 0;
  return s;
}

Section replay_section(const Status& status, const ViewState& view) {
  std::vector<const ReplayRow*> rows;
  for (const auto& r : status.replay) {
    if (view.filter.empty() || r.task.rfind(view.filter + ".", 0) == 0) rows.push_back(&r);
  }
  Section s;
  if (rows.empty()) return s;
  const std::size_t task_w = name_width(rows, "TASK", 24, [](const ReplayRow* r) -> const std::string& { return r->task; });
  const std::size_t table_w = name_width(rows, "TABLE", 20, [](const ReplayRow* r) -> const std::string& { return r->table; });
  const std::vector<Column> columns{{"TASK", task_w},           {"TABLE", table_w},       {"SIZE", 13, true},
                                    {"INSERTS/s", 9, true},     {"SAMPLES/s", 9, true},   {"PARKED", 0}};
  s.head.push_back({""});
  s.head.push_back({heading_text(columns), Line::Style::heading});
  for (const ReplayRow* r : rows) {
    std::string size = human_count(static_cast<double>(r->size));
    if (r->max_size > 0) size += "/" + human_count(static_cast<double>(r->max_size));
    s.rows.push_back({row_text(columns, {r->task, r->table, size, rate_text(r->inserts_per_second),
                                         rate_text(r->samples_per_second),
                                         std::to_string(r->parked_inserts) + "/" + std::to_string(r->parked_samples)})});
  }
  return s;
}

Section event_section(const Status& status, const ViewState& view, long offset_s) {
  std::vector<const EventRow*> rows;
  for (const auto& e : status.events) {
    if (in_filter(view, e.node)) rows.push_back(&e);
  }
  Section s;
  if (rows.empty()) return s;
  auto task_of = [](const EventRow* e) {
    if (e->node.empty()) return std::string("-");
    return e->replica ? e->node + "." + std::to_string(*e->replica) : e->node;
  };
  std::size_t task_w = 4, host_w = 4;
  for (const EventRow* e : rows) {
    task_w = std::max(task_w, task_of(e).size());
    host_w = std::max(host_w, e->host.size());
  }
  const std::vector<Column> columns{{"TIME", 8},          {"KIND", 17},          {"TASK", std::min<std::size_t>(task_w, 24)},
                                    {"ATTEMPT", 7, true}, {"EPOCH", 5, true},    {"HOST", std::min<std::size_t>(host_w, 20)},
                                    {"CAUSE", 0}};
  s.head.push_back({""});
  s.head.push_back({heading_text(columns), Line::Style::heading});
  for (const EventRow* e : rows) {
    s.rows.push_back({row_text(columns, {event_time(e->time, offset_s), e->kind, task_of(e), optional_number(e->attempt),
                                         optional_number(e->epoch), e->host.empty() ? "-" : e->host, e->cause})});
  }
  return s;
}

std::vector<Line> header(const Status& status, const ViewState& view, bool live) {
  std::string first = status.program.empty() ? std::string("(unnamed program)") : status.program;
  first += "  " + (status.state.empty() ? std::string("unknown") : status.state);
  if (!status.stop_reason.empty()) first += " (" + status.stop_reason + ")";
  first += "  resume " + std::to_string(status.resume);
  if (status.started_unix_ms > 0 && status.unix_ms >= status.started_unix_ms) {
    first += "  up " + duration_hms((status.unix_ms - status.started_unix_ms) / 1000);
  }
  first += "  members " + std::to_string(status.members);
  if (live) {
    static constexpr char kSpinner[] = "-\\|/";
    first += "  ";
    first += kSpinner[view.heartbeat % 4];
  }
  const bool stale = view.stale_seconds >= 3;
  if (stale) first += "  no update for " + ago(view.stale_seconds);
  std::string second = "run " + (status.run.empty() ? std::string("-") : status.run);
  if (status.metrics) second += "  metrics " + *status.metrics;
  second += "  sort " + std::string(sort_name(view.sort));
  if (!view.filter.empty()) second += "  node " + view.filter;
  return {{first, stale ? Line::Style::alert : Line::Style::plain}, {second}};
}

// Puts `section` into `out` showing at most `room` rows (all when
// unbounded), scrolled so that its selection shows when `scroll` is given.
void place(std::vector<Line>& out, Section& section, std::optional<std::size_t> room, std::size_t* scroll) {
  out.insert(out.end(), section.head.begin(), section.head.end());
  std::size_t first = 0;
  std::size_t n = section.rows.size();
  if (room && *room < n) {
    if (scroll) {
      std::size_t& top = *scroll;
      if (section.selected) {
        if (*section.selected < top) top = *section.selected;
        if (*section.selected >= top + *room) top = *section.selected - *room + 1;
      }
      top = std::min(top, n - *room);
      first = top;
    } else {
      first = n - *room;  // events: the newest
    }
    n = *room;
  } else if (scroll) {
    *scroll = 0;
  }
  for (std::size_t i = first; i < first + n; ++i) {
    Line line = section.rows[i];
    if (scroll && section.selected == i) line.style = Line::Style::selected;
    out.push_back(std::move(line));
  }
}

// The banner, over as many lines as `cols` (0: one line) takes: it says
// what to do at its end.
void add_banner(std::vector<Line>& out, const std::string& banner, std::size_t cols) {
  for (std::size_t at = 0; at < banner.size(); at += cols ? cols : banner.size()) {
    out.push_back({banner.substr(at, cols ? cols : std::string::npos), Line::Style::alert});
  }
}

}  // namespace

const char* sort_name(SortKey key) {
  switch (key) {
    case SortKey::order: return "node order";
    case SortKey::restarts: return "restarts";
    case SortKey::cpu: return "cpu";
    case SortKey::rss: return "rss";
  }
  return "?";
}

SortKey next_sort(SortKey key) {
  switch (key) {
    case SortKey::order: return SortKey::restarts;
    case SortKey::restarts: return SortKey::cpu;
    case SortKey::cpu: return SortKey::rss;
    case SortKey::rss: return SortKey::order;
  }
  return SortKey::order;
}

std::vector<const NodeRow*> visible_nodes(const Status& status, const ViewState& view) {
  std::vector<const NodeRow*> rows;
  for (const auto& n : status.nodes) {
    if (in_filter(view, n.name)) rows.push_back(&n);
  }
  if (view.sort != SortKey::order) {
    std::stable_sort(rows.begin(), rows.end(), [&](const NodeRow* a, const NodeRow* b) {
      return sort_value(view.sort, a->restarts, a->cpu_percent, a->rss_bytes) >
             sort_value(view.sort, b->restarts, b->cpu_percent, b->rss_bytes);
    });
  }
  return rows;
}

const NodeRow* filtered_node(const Status& status, const ViewState& view) {
  if (view.filter.empty()) return nullptr;
  for (const auto& n : status.nodes) {
    if (n.name == view.filter) return &n;
  }
  return nullptr;
}

std::vector<const TaskRow*> visible_tasks(const Status& status, const ViewState& view) {
  std::vector<const TaskRow*> rows;
  const NodeRow* node = filtered_node(status, view);
  if (!node) return rows;
  for (const auto& t : node->tasks) rows.push_back(&t);
  if (view.sort != SortKey::order) {
    std::stable_sort(rows.begin(), rows.end(), [&](const TaskRow* a, const TaskRow* b) {
      return sort_value(view.sort, a->restarts, a->cpu_percent, a->rss_bytes) >
             sort_value(view.sort, b->restarts, b->cpu_percent, b->rss_bytes);
    });
  }
  return rows;
}

std::vector<Line> render(const Model& model, ViewState& view, std::size_t rows, std::size_t cols,
                         long local_offset_s) {
  const bool bounded = rows > 0;
  std::vector<Line> out;
  if (!model.has_status()) {
    if (!view.waiting.empty()) out.push_back({view.waiting});
    else if (view.banner.empty()) out.push_back({"waiting for the program's status"});
    add_banner(out, view.banner, cols);
  } else {
    const Status& status = model.status();
    out = header(status, view, bounded);
    add_banner(out, view.banner, cols);
    out.push_back({""});

    const auto nodes = visible_nodes(status, view);
    Section main = node_section(status, view, nodes);
    const bool filtered = !view.filter.empty();
    Section tasks;
    if (filtered) {
      if (nodes.empty()) {
        main.rows.push_back({"no node '" + view.filter + "' in " + status.program + " (press f for every node)",
                             Line::Style::alert});
      } else {
        tasks = task_section(status, view, visible_tasks(status, view));
      }
    }
    Section& table = filtered ? tasks : main;  // the rows the keys move in
    Section replay = replay_section(status, view);
    Section events = event_section(status, view, local_offset_s);

    std::optional<std::size_t> table_room, replay_room, event_room;
    if (bounded) {
      // What is left below the header, less the key help at the bottom.
      std::size_t left = rows > out.size() + 1 ? rows - out.size() - 1 : 0;
      const std::size_t fixed = table.head.size() + (filtered ? main.head.size() + main.rows.size() : 0);
      left = left > fixed ? left - fixed : 0;
      auto cost = [](const Section& s, std::size_t n) { return n ? s.head.size() + n : 0; };
      std::size_t replay_n = std::min(replay.rows.size(), kReplayRows);
      std::size_t event_n = std::min(events.rows.size(), kEventRows);
      // The table keeps a few rows: the events give way first, then the replay.
      const std::size_t table_min = std::min(table.rows.size(), kMinTableRows);
      if (left < table_min + cost(replay, replay_n) + cost(events, event_n)) event_n = 0;
      if (left < table_min + cost(replay, replay_n) + cost(events, event_n)) replay_n = 0;
      const std::size_t others = cost(replay, replay_n) + cost(events, event_n);
      const std::size_t table_n = std::min(table.rows.size(), left > others ? left - others : 0);
      left = left > table_n + others ? left - table_n - others : 0;
      // Room to spare: more events, then more replay rows.
      auto grow = [&left](std::size_t& n, const Section& s) {
        if (!n) return;
        const std::size_t more = std::min(left, s.rows.size() - n);
        n += more;
        left -= more;
      };
      grow(event_n, events);
      grow(replay_n, replay);
      table_room = table_n;
      replay_room = replay_n;
      event_room = event_n;
      if (!replay_n) replay.head.clear();
      if (!event_n) events.head.clear();
    }
    if (filtered) place(out, main, std::nullopt, nullptr);
    place(out, table, table_room, &view.scroll);
    place(out, replay, replay_room, nullptr);
    place(out, events, event_room, nullptr);
  }
  // Text from the document never reaches the terminal as control characters.
  for (auto& line : out) {
    for (char& c : line.text) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    line.text.erase(line.text.find_last_not_of(' ') + 1);
  }
  if (bounded) {
    if (out.size() + 1 > rows) out.resize(rows > 0 ? rows - 1 : 0);
    while (out.size() + 1 < rows) out.push_back({""});
    out.push_back({"q quit  j/k move  Enter open  f node  / find  s sort", Line::Style::heading});
    for (auto& line : out) {
      if (cols && line.text.size() > cols) line.text.resize(cols);
    }
  }
  return out;
}

std::string human_bytes(std::int64_t bytes) {
  static constexpr const char* kUnits[] = {"K", "M", "G", "T", "P"};
  if (bytes < 1024) return std::to_string(std::max<std::int64_t>(bytes, 0)) + "B";
  double v = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) v /= 1024, ++unit;
  return format(v < 10 ? "%.1f%s" : "%.0f%s", v, kUnits[unit]);
}

std::string human_count(double n) {
  static constexpr const char* kUnits[] = {"k", "M", "G", "T"};
  if (n < 0) n = 0;
  if (n < 1000) return n == static_cast<double>(static_cast<std::int64_t>(n)) ? format("%.0f", n) : format("%.1f", n);
  double v = n / 1000;
  std::size_t unit = 0;
  while (v >= 1000 && unit + 1 < std::size(kUnits)) v /= 1000, ++unit;
  return format(v < 100 ? "%.1f%s" : "%.0f%s", v, kUnits[unit]);
}

std::string duration_hms(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const std::int64_t days = seconds / 86400;
  const std::int64_t h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
  if (days) return format("%" PRId64 "d%02" PRId64 ":%02" PRId64 ":%02" PRId64, days, h, m, s);
  return format("%" PRId64 ":%02" PRId64 ":%02" PRId64, h, m, s);
}

std::string ago(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 7200) return std::to_string(seconds / 60) + "m";
  if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

}  // namespace slipway::cli::top
