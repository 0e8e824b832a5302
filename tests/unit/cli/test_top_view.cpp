// `slipway top`'s frame: what --once prints for a fixture document, how a
// terminal's rows are shared, sorting, filtering and formatting.
#include <catch2/catch.hpp>

#include <algorithm>

#include "top_fixture.hpp"
#include "top_view.hpp"

using namespace slipway::cli::top;
using slipway::cli::top::test::fixture;
using slipway::cli::top::test::second_document;

namespace {

Model two_documents() {
  Model model;
  model.update(fixture("status_first.json").dump());
  model.update(second_document().dump());
  return model;
}

std::vector<std::string> texts(const std::vector<Line>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l.text);
  return out;
}

// The index of the first line that starts with `prefix` (lines.size() if none).
std::size_t find_line(const std::vector<std::string>& lines, const std::string& prefix) {
  return static_cast<std::size_t>(std::find_if(lines.begin(), lines.end(),
                                               [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }) -
                                  lines.begin());
}

}  // namespace

TEST_CASE("top_view_once_prints_header_nodes_replay_and_events") {
  const Model model = two_documents();
  ViewState view;
  const auto lines = texts(render(model, view, 0, 0, 0));
  REQUIRE(lines.size() >= 15);
  CHECK(lines[0] == "impala  running  resume 1  up 1:01:03  members 7");
  CHECK(lines[1] == "run /runs/impala.20261128-120000  metrics http://127.0.0.1:43211/  sort node order");
  CHECK(lines[2].empty());
  CHECK(lines[3] ==
        "NODE    TYPE    LIVE MIN:MAX  RUN PEND BACK FAIL DONE RESTARTS EPOCH   CPU%     RSS LAST EXIT");
  CHECK(lines[4] ==
        "replay  replay     1     1:1    1    0    0    0    0        0     -   50.0    2.0G -");
  CHECK(lines[5] ==
        "learner exec       2     2:2    2    0    0    0    0        4     3    200    8.0G r1 signal 9 (SIGKILL), 2m ago");
  CHECK(lines[6] ==
        "actor   exec       3     2:8    2    1    1    1    2        1     -   50.0    300M r3 exit 3, 7s ago");
  const std::size_t replay = find_line(lines, "TASK");
  REQUIRE(replay < lines.size());
  CHECK(lines[replay] == "TASK     TABLE               SIZE INSERTS/s SAMPLES/s PARKED");
  CHECK(lines[replay + 1] == "replay.0 experience    12.3k/1.0M      1.0k       250 3/0");
  const std::size_t events = find_line(lines, "TIME");
  REQUIRE(events < lines.size());
  CHECK(lines[events + 1] == "10:59:00 program_start     -               -     - -");
  CHECK(lines[events + 2] == "11:58:00 exit              learner.1       2     2 node3 signal 9 (SIGKILL)");
  // A control character from the document is not passed to the terminal.
  CHECK(lines[events + 4] == "11:59:55 exit              actor.3         0     - node5 exit 3?[31m");
  CHECK(lines.size() == events + 5);
}

TEST_CASE("top_view_filtered_to_a_node_shows_its_tasks_replay_and_events") {
  const Model model = two_documents();
  ViewState view;
  view.filter = "learner";
  const auto lines = texts(render(model, view, 0, 0, 3600));
  CHECK(lines[1].find("  node learner") != std::string::npos);
  CHECK(lines[4].rfind("learner exec", 0) == 0);
  CHECK(find_line(lines, "replay ") == lines.size());
  const std::size_t tasks = find_line(lines, "REPLICA");
  REQUIRE(tasks < lines.size());
  CHECK(lines[tasks] == "REPLICA HOST  STATE     ATTEMPT EPOCH   CPU%     RSS LAST EXIT");
  CHECK(lines[tasks + 1] == "      0 node2 running         3     3    100    4.0G a2 exit 1, 2m ago");
  CHECK(lines[tasks + 2] == "      1 node3 running         3     3    100    4.0G a2 signal 9 (SIGKILL), 2m ago");
  // No replay rows of another node; the learner's events only, at the offset given.
  CHECK(find_line(lines, "TASK") == lines.size());
  const std::size_t events = find_line(lines, "TIME");
  REQUIRE(events < lines.size());
  CHECK(lines[events + 1].rfind("12:58:00 exit              learner.1", 0) == 0);
  CHECK(lines[events + 2].rfind("12:58:10 epoch             learner ", 0) == 0);
  CHECK(lines.size() == events + 3);

  view.filter = "nosuch";
  const auto none = texts(render(model, view, 0, 0, 0));
  CHECK(find_line(none, "no node 'nosuch' in impala") < none.size());
}

TEST_CASE("top_view_sorts_by_restarts_cpu_and_rss_keeping_topology_order_on_ties") {
  const Model model = two_documents();
  ViewState view;
  auto names = [&] {
    std::vector<std::string> out;
    for (const NodeRow* n : visible_nodes(model.status(), view)) out.push_back(n->name);
    return out;
  };
  CHECK(names() == std::vector<std::string>{"replay", "learner", "actor"});
  view.sort = next_sort(view.sort);
  CHECK(view.sort == SortKey::restarts);
  CHECK(names() == std::vector<std::string>{"learner", "actor", "replay"});
  view.sort = next_sort(view.sort);
  CHECK(names() == std::vector<std::string>{"learner", "replay", "actor"});  // 200, 50, 50
  view.sort = next_sort(view.sort);
  CHECK(names() == std::vector<std::string>{"learner", "replay", "actor"});  // 8G, 2G, 300M
  view.sort = next_sort(view.sort);
  CHECK(view.sort == SortKey::order);

  view.filter = "actor";
  view.sort = SortKey::rss;
  std::vector<std::uint32_t> replicas;
  for (const TaskRow* t : visible_tasks(model.status(), view)) replicas.push_back(t->replica);
  CHECK(replicas == std::vector<std::uint32_t>{0, 1, 2, 3});  // 200M, 100M, unknown, unknown
  view.sort = SortKey::cpu;
  replicas.clear();
  for (const TaskRow* t : visible_tasks(model.status(), view)) replicas.push_back(t->replica);
  CHECK(replicas == std::vector<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("top_view_fits_the_terminal_and_scrolls_to_the_selection") {
  // 40 nodes, 10 events: a terminal of 20 rows by 50 columns.
  nlohmann::json doc = {{"schema", 1}, {"program", "wide"}, {"state", "running"}};
  for (int i = 0; i < 40; ++i) doc["nodes"].push_back({{"name", "n" + std::to_string(i)}, {"replicas", 1}});
  for (int i = 0; i < 10; ++i) {
    doc["events"].push_back({{"seq", i}, {"time", "2026-11-28T12:00:00Z"}, {"kind", "start"}, {"node", "n1"}});
  }
  Model model;
  model.update(doc.dump());
  ViewState view;
  view.selected_node = "n30";
  auto lines = render(model, view, 20, 50, 0);
  REQUIRE(lines.size() == 20);
  for (const auto& l : lines) CHECK(l.text.size() <= 50);
  CHECK(lines.back().style == Line::Style::heading);
  CHECK(lines.back().text.rfind("q quit", 0) == 0);
  // header 2, blank 1, heading 1, then the table; events keep their rows
  // (blank, heading, the newest) below it.
  const auto selected = std::find_if(lines.begin(), lines.end(), [](const Line& l) { return l.style == Line::Style::selected; });
  REQUIRE(selected != lines.end());
  CHECK(selected->text.rfind("n30 ", 0) == 0);
  CHECK(view.scroll > 0);
  const auto t = texts(lines);
  const std::size_t events = find_line(t, "TIME");
  REQUIRE(events < t.size());
  CHECK(t[events - 1].empty());
  CHECK(t[events + 1].rfind("12:00:00 start", 0) == 0);
  // The node table took the rest: it ends right above the events.
  CHECK(t[events - 2].rfind("n", 0) == 0);

  // A terminal too small for the events: the table keeps its rows.
  ViewState small;
  const auto tiny = texts(render(model, small, 9, 80, 0));
  REQUIRE(tiny.size() == 9);
  CHECK(find_line(tiny, "TIME") == tiny.size());
  CHECK(tiny[4].rfind("n0 ", 0) == 0);
}

TEST_CASE("top_view_before_the_first_document_says_what_it_waits_for") {
  Model model;
  ViewState view;
  view.waiting = "the program publishes no status document yet";
  view.banner = "the program has ended";
  const auto lines = render(model, view, 5, 80, 0);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].text == "the program publishes no status document yet");
  CHECK(lines[1].text == "the program has ended");
  CHECK(lines[1].style == Line::Style::alert);
  // A banner longer than the terminal is wide goes on over the next lines.
  view.banner = std::string(100, 'x') + ": press any key";
  const auto wrapped = render(model, view, 6, 80, 0);
  CHECK(wrapped[1].text == std::string(80, 'x'));
  CHECK(wrapped[2].text == std::string(20, 'x') + ": press any key");
  CHECK(wrapped[2].style == Line::Style::alert);
  view.banner = "the program has ended";
  // Gone before any document: the banner alone.
  view.waiting.clear();
  const auto gone = render(model, view, 5, 80, 0);
  CHECK(gone[0].text == "the program has ended");
  view.banner.clear();
  CHECK(render(model, view, 5, 80, 0)[0].text == "waiting for the program's status");
}

TEST_CASE("top_view_marks_updates_and_a_stale_document") {
  Model model;
  model.update(fixture("status_first.json").dump());
  ViewState view;
  view.heartbeat = 1;
  auto lines = render(model, view, 30, 200, 0);
  CHECK(lines[0].text == "impala  running  resume 1  up 1:01:01  members 7  \\");
  CHECK(lines[0].style == Line::Style::plain);
  view.stale_seconds = 12;
  lines = render(model, view, 30, 200, 0);
  CHECK(lines[0].text == "impala  running  resume 1  up 1:01:01  members 7  \\  no update for 12s");
  CHECK(lines[0].style == Line::Style::alert);
}

TEST_CASE("top_view_formats_bytes_counts_and_durations") {
  CHECK(human_bytes(0) == "0B");
  CHECK(human_bytes(1023) == "1023B");
  CHECK(human_bytes(1536) == "1.5K");
  CHECK(human_bytes(300LL << 20) == "300M");
  CHECK(human_bytes(5LL << 40) == "5.0T");
  CHECK(human_count(0) == "0");
  CHECK(human_count(12.5) == "12.5");
  CHECK(human_count(999) == "999");
  CHECK(human_count(12345) == "12.3k");
  CHECK(human_count(250000) == "250k");
  CHECK(human_count(1e6) == "1.0M");
  CHECK(duration_hms(0) == "0:00:00");
  CHECK(duration_hms(3723) == "1:02:03");
  CHECK(duration_hms(2 * 86400 + 3723) == "2d01:02:03");
  CHECK(ago(59) == "59s");
  CHECK(ago(150) == "2m");
  CHECK(ago(3 * 3600) == "3h");
  CHECK(ago(3 * 86400) == "3d");
}
