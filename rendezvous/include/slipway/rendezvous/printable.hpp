// Text a peer chose, fit for one log line: used wherever a log line carries
// a name, label or reason that came over the wire (the rendezvous's log and
// the courier endpoints' messages alike).
//
// Contract: printable() writes every byte outside printable ASCII, and the
// backslash, as an escape (\n, \r, \t, \\, \xNN), so a peer's text can
// neither start a line of its own nor send terminal controls.
#pragma once

#include <string>
#include <string_view>

namespace slipway::rendezvous {

std::string printable(std::string_view text);

}  // namespace slipway::rendezvous
