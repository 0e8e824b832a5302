// `slipway top`'s keys: moving the selection, filtering to a node and back,
// opening a task's log, finding a node by name.
#include <catch2/catch.hpp>

#include "top_fixture.hpp"
#include "top_keys.hpp"

using namespace slipway::cli::top;
using slipway::cli::top::test::fixture;

namespace {

Model loaded() {
  Model model;
  model.update(fixture("status_first.json").dump());
  return model;
}

}  // namespace

TEST_CASE("top_keys_move_the_selection_within_the_nodes_shown") {
  const Model model = loaded();
  ViewState view;
  CHECK(handle_key(Key::down, model, view, 10).kind == Action::Kind::redraw);
  CHECK(view.selected_node == "learner");
  handle_key(Key::down, model, view, 10);
  handle_key(Key::down, model, view, 10);
  CHECK(view.selected_node == "actor");  // stays on the last
  handle_key(Key::home, model, view, 10);
  CHECK(view.selected_node == "replay");
  handle_key(Key::page_down, model, view, 2);
  CHECK(view.selected_node == "actor");
  handle_key(Key::up, model, view, 10);
  CHECK(view.selected_node == "learner");
  // The selection follows its node when the sort changes.
  handle_key(Key::sort, model, view, 10);
  CHECK(view.sort == SortKey::restarts);
  handle_key(Key::up, model, view, 10);
  CHECK(view.selected_node == "learner");  // first by restarts
}

TEST_CASE("top_keys_filter_to_a_node_then_open_its_task_log") {
  const Model model = loaded();
  ViewState view;
  handle_key(Key::end, model, view, 10);
  CHECK(handle_key(Key::filter, model, view, 10).kind == Action::Kind::redraw);
  CHECK(view.filter == "actor");
  handle_key(Key::down, model, view, 10);
  handle_key(Key::down, model, view, 10);
  CHECK(view.selected_replica == std::optional<std::uint32_t>(2));
  const Action open = handle_key(Key::open, model, view, 10);
  CHECK(open.kind == Action::Kind::open_log);
  CHECK(open.task == "actor.2");
  // f again, or back: every node, the selection on the node left.
  handle_key(Key::filter, model, view, 10);
  CHECK(view.filter.empty());
  CHECK(view.selected_node == "actor");
  // Enter on a node opens it; back leaves it.
  handle_key(Key::up, model, view, 10);
  handle_key(Key::open, model, view, 10);
  CHECK(view.filter == "learner");
  CHECK(handle_key(Key::open, model, view, 10).task == "learner.0");
  handle_key(Key::back, model, view, 10);
  CHECK(view.filter.empty());
  CHECK(handle_key(Key::back, model, view, 10).kind == Action::Kind::redraw);
  CHECK(handle_key(Key::quit, model, view, 10).kind == Action::Kind::quit);
  CHECK(handle_key(Key::find, model, view, 10).kind == Action::Kind::find);
}

TEST_CASE("top_keys_find_a_node_by_name_or_prefix") {
  const Model model = loaded();
  ViewState view;
  CHECK(find_node("learner", model, view));
  CHECK(view.filter == "learner");
  CHECK(find_node("ac", model, view));
  CHECK(view.filter == "actor");
  CHECK_FALSE(find_node("zz", model, view));
  CHECK(view.filter == "actor");
  CHECK(view.banner == "no node named 'zz' or starting so");
  CHECK(find_node("", model, view));
  CHECK(view.filter.empty());
}

TEST_CASE("top_keys_before_the_first_document_only_quit_sort_and_find") {
  Model model;
  ViewState view;
  CHECK(handle_key(Key::down, model, view, 10).kind == Action::Kind::redraw);
  CHECK(handle_key(Key::open, model, view, 10).kind == Action::Kind::redraw);
  CHECK(view.filter.empty());
  CHECK(handle_key(Key::quit, model, view, 10).kind == Action::Kind::quit);
}
