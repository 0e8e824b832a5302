// Where slipway's programs are: this binary, and its siblings
// (slipway-exec), as installed side by side in bin/.
#pragma once

#include <string>

namespace slipway::cli {

// The absolute path of the running `slipway`.
std::string self_program();

// $SLIPWAY_EXEC for slipway-exec (tests), else NAME next to this program
// when it exists there, else NAME (searched in PATH).
std::string sibling_program(const std::string& name);

}  // namespace slipway::cli
