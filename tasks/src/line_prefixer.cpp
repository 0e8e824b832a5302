// LinePrefixer: whole-line, prefixed task output (see header).
#include "slipway/tasks/line_prefixer.hpp"

#include <unistd.h>

#include <cerrno>

namespace slipway::tasks {


void LinePrefixer::emit(std::string_view line, std::string& terminal_out) {
  terminal_out += prefix_;
  terminal_out += line;
}

void LinePrefixer::feed(std::string_view bytes) {
  std::string terminal_out;
  while (!bytes.empty()) {
    auto newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      std::size_t room = kMaxLine - partial_.size();
      if (bytes.size() < room) {
        partial_.append(bytes);
        break;
      }
      partial_.append(bytes.substr(0, room));
      bytes.remove_prefix(room);
      partial_ += '\n';
      emit(partial_, terminal_out);
      partial_.clear();
      continue;
    }
    if (partial_.empty()) {
      emit(bytes.substr(0, newline + 1), terminal_out);
    } else {
      partial_.append(bytes.substr(0, newline + 1));
      emit(partial_, terminal_out);
      partial_.clear();
    }
    bytes.remove_prefix(newline + 1);
  }
  if (!terminal_out.empty()) terminal_.write(terminal_out);
}

bool LinePrefixer::finish() {
  if (partial_.empty()) return false;
  partial_ += '\n';
  std::string terminal_out;
  emit(partial_, terminal_out);
  partial_.clear();
  terminal_.write(terminal_out);
  return true;
}

}  // namespace slipway::tasks
