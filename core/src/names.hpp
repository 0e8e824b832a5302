// Naming rules shared by the parser, validator and environment builders:
// which node, port, group and variable names are valid.
#pragma once

#include <string_view>

namespace slipway::core {

// [A-Za-z][A-Za-z0-9_.-]* up to limits::kMaxNameLength.
bool is_valid_node_name(std::string_view name);
// [A-Za-z][A-Za-z0-9_-]* up to limits::kMaxNameLength (ports, colocate groups).
bool is_valid_port_name(std::string_view name);
// [A-Za-z_][A-Za-z0-9_]* (an environment variable name).
bool is_valid_env_name(std::string_view name);
// [A-Za-z0-9][A-Za-z0-9_.-]* up to limits::kMaxNameLength.
bool is_valid_program_name(std::string_view name);
// [A-Za-z][A-Za-z0-9_]*: a TensorFlow job name.
bool is_valid_tensorflow_job(std::string_view name);

}  // namespace slipway::core
