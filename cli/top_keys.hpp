// `slipway top`'s keys: what each does to the view (selection, sort,
// filter) and which ask the shell for more (quit, open a log, read a node's
// name). Pure: the curses shell maps its key codes to Key.
#pragma once

#include <cstddef>
#include <string>

#include "top_model.hpp"
#include "top_view.hpp"

namespace slipway::cli::top {

enum class Key { up, down, page_up, page_down, home, end, sort, filter, find, open, back, quit };

struct Action {
  enum class Kind { redraw, quit, open_log, find };
  Kind kind = Kind::redraw;
  std::string task;  // open_log: NODE.REPLICA
};

// `page`: the rows a page key moves.
Action handle_key(Key key, const Model& model, ViewState& view, std::size_t page);

// The node `text` names (its name, else the first in topology order whose
// name starts with it) becomes the filter; empty text shows every node.
// False, with view.banner saying so, when no node matches.
bool find_node(const std::string& text, const Model& model, ViewState& view);

}  // namespace slipway::cli::top
