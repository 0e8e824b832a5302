// What `slipway top`'s keys do to the view (see top_keys.hpp).
#include "top_keys.hpp"

#include <algorithm>

namespace slipway::cli::top {
namespace {

void filter_to(ViewState& view, const std::string& node) {
  view.filter = node;
  view.selected_node = node;
  view.selected_replica.reset();
  view.scroll = 0;
}

void show_every_node(ViewState& view) {
  view.selected_node = view.filter;  // the selection comes back to the node left
  view.filter.clear();
  view.selected_replica.reset();
  view.scroll = 0;
}

// The index `key` moves `from` to, among `n` rows.
std::size_t moved(Key key, std::size_t from, std::size_t n, std::size_t page) {
  if (n == 0) return 0;
  page = std::max<std::size_t>(page, 1);
  switch (key) {
    case Key::up: return from ? from - 1 : 0;
    case Key::down: return std::min(from + 1, n - 1);
    case Key::page_up: return from > page ? from - page : 0;
    case Key::page_down: return std::min(from + page, n - 1);
    case Key::home: return 0;
    case Key::end: return n - 1;
    default: return from;
  }
}

void move_selection(Key key, const Model& model, ViewState& view, std::size_t page) {
  if (view.filter.empty()) {
    const auto nodes = visible_nodes(model.status(), view);
    if (nodes.empty()) return;
    std::size_t at = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i]->name == view.selected_node) at = i;
    }
    view.selected_node = nodes[moved(key, at, nodes.size(), page)]->name;
  } else {
    const auto tasks = visible_tasks(model.status(), view);
    if (tasks.empty()) return;
    std::size_t at = 0;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (view.selected_replica && tasks[i]->replica == *view.selected_replica) at = i;
    }
    view.selected_replica = tasks[moved(key, at, tasks.size(), page)]->replica;
  }
}

// The node selected now (the first shown when none is).
std::string selected_node(const Model& model, const ViewState& view) {
  const auto nodes = visible_nodes(model.status(), view);
  for (const NodeRow* n : nodes) {
    if (n->name == view.selected_node) return n->name;
  }
  return nodes.empty() ? std::string() : nodes.front()->name;
}

}  // namespace

Action handle_key(Key key, const Model& model, ViewState& view, std::size_t page) {
  switch (key) {
    case Key::quit: return {Action::Kind::quit, {}};
    case Key::find: return {Action::Kind::find, {}};
    case Key::sort: view.sort = next_sort(view.sort); return {};
    default: break;
  }
  if (!model.has_status()) return {};
  switch (key) {
    case Key::filter:
      if (!view.filter.empty()) show_every_node(view);
      else if (auto node = selected_node(model, view); !node.empty()) filter_to(view, node);
      return {};
    case Key::back:
      if (!view.filter.empty()) show_every_node(view);
      return {};
    case Key::open:
      if (view.filter.empty()) {
        if (auto node = selected_node(model, view); !node.empty()) filter_to(view, node);
        return {};
      } else {
        const auto tasks = visible_tasks(model.status(), view);
        for (const TaskRow* t : tasks) {
          if (!view.selected_replica || t->replica == *view.selected_replica) {
            return {Action::Kind::open_log, view.filter + "." + std::to_string(t->replica)};
          }
        }
        return {};
      }
    default:
      move_selection(key, model, view, page);
      return {};
  }
}

bool find_node(const std::string& text, const Model& model, ViewState& view) {
  if (text.empty()) {
    if (!view.filter.empty()) show_every_node(view);
    return true;
  }
  const NodeRow* match = nullptr;
  for (const auto& n : model.status().nodes) {
    if (n.name == text) {
      match = &n;
      break;
    }
    if (!match && n.name.rfind(text, 0) == 0) match = &n;
  }
  if (!match) {
    view.banner = "no node named '" + text + "' or starting so";
    return false;
  }
  filter_to(view, match->name);
  return true;
}

}  // namespace slipway::cli::top
