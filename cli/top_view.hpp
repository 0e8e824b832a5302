// `slipway top`'s screen as lines of text: the header, the node table (or,
// filtered to one node, its tasks), the replay tables and the newest
// events, sorted, filtered, fitted to the terminal and with the selection
// marked. Pure: the curses shell (top_screen.hpp) only paints these lines,
// and `--once` prints them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "top_model.hpp"

namespace slipway::cli::top {

enum class SortKey { order, restarts, cpu, rss };
const char* sort_name(SortKey key);
SortKey next_sort(SortKey key);

// What the user chose, and what the shell knows besides the document.
struct ViewState {
  SortKey sort = SortKey::order;
  std::string filter;           // a node's name; empty: every node
  std::string selected_node;    // unfiltered: the selected node (empty: the first)
  std::optional<std::uint32_t> selected_replica;  // filtered: the selected task
  std::size_t scroll = 0;       // first row of the table shown
  unsigned heartbeat = 0;       // advances with each new document
  std::string banner;           // a line shown under the header (program gone, errors)
  std::string waiting;          // shown instead of tables before the first document (empty: a default, unless a banner says more)
  std::int64_t stale_seconds = 0;  // no new document for this long (0: fresh)
};

struct Line {
  enum class Style { plain, heading, selected, alert };
  std::string text;
  Style style = Style::plain;
};

// The nodes as shown: sorted (descending for restarts, cpu, rss; topology
// order breaks ties) and filtered.
std::vector<const NodeRow*> visible_nodes(const Status& status, const ViewState& view);
// The filtered node's tasks, sorted the same way; empty when not filtered.
std::vector<const TaskRow*> visible_tasks(const Status& status, const ViewState& view);
// The filtered node, or nullptr.
const NodeRow* filtered_node(const Status& status, const ViewState& view);

// The lines of one frame. rows/cols 0: unbounded (every row, lines not
// cut; `--once`); otherwise at most `rows` lines of at most `cols`
// characters, the table scrolled so that the selection shows (view.scroll
// is updated). `local_offset_s`: seconds east of UTC for event times.
std::vector<Line> render(const Model& model, ViewState& view, std::size_t rows, std::size_t cols,
                         long local_offset_s);

// Formatting shared with the tests: 1.5K, 12.0M, 3.2G (1024-based bytes);
// 12.3k, 4.0M (1000-based counts); 1:02:03 or 2d03:04:05; "12s", "3m", "2h",
// "4d" ago.
std::string human_bytes(std::int64_t bytes);
std::string human_count(double n);
std::string duration_hms(std::int64_t seconds);
std::string ago(std::int64_t seconds);

}  // namespace slipway::cli::top
