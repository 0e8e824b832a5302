// split_shell_words: a command line split into argv like a POSIX shell does
// it (blanks, single and double quotes, backslashes), without any expansion.
// Unquoted shell operators and `$` are rejected: no shell runs the command.
#include <string>
#include <string_view>
#include <vector>

#include "slipway/core/topology.hpp"

namespace slipway::core {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_shell_special(char c) {
  switch (c) {
    case '|': case '&': case ';': case '<': case '>': case '(': case ')': case '$': case '`':
      return true;
    default:
      return false;
  }
}

bool fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

}  // namespace

std::optional<std::vector<std::string>> split_shell_words(std::string_view line, std::string* error) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  std::size_t i = 0;
  auto run = [&]() -> bool {
    while (i < line.size()) {
      const char c = line[i];
      if (is_blank(c)) {
        if (in_word) words.push_back(std::move(word));
        word.clear();
        in_word = false;
        ++i;
      } else if (c == '\\') {
        if (i + 1 >= line.size()) return fail(error, "ends with a lone backslash");
        if (line[i + 1] != '\n') {  // backslash-newline continues the line
          word += line[i + 1];
          in_word = true;
        }
        i += 2;
      } else if (c == '\'') {
        const std::size_t close = line.find('\'', i + 1);
        if (close == std::string_view::npos) return fail(error, "has an unterminated single quote");
        word.append(line.substr(i + 1, close - i - 1));
        in_word = true;
        i = close + 1;
      } else if (c == '"') {
        ++i;
        in_word = true;
        for (;;) {
          if (i >= line.size()) return fail(error, "has an unterminated double quote");
          const char d = line[i];
          if (d == '"') {
            ++i;
            break;
          }
          if (d == '\\' && i + 1 < line.size()) {
            const char e = line[i + 1];
            if (e == '$' || e == '`' || e == '"' || e == '\\') {
              word += e;
              i += 2;
              continue;
            }
            if (e == '\n') {
              i += 2;
              continue;
            }
          } else if (d == '$' || d == '`') {
            return fail(error, std::string("uses '") + d +
                                   "' inside double quotes, but no shell expands it; use single "
                                   "quotes, or command = [\"/bin/sh\", \"-c\", \"...\"]");
          }
          word += d;
          ++i;
        }
      } else if (is_shell_special(c)) {
        return fail(error, std::string("uses the shell operator '") + c +
                               "', but commands run without a shell; quote it, or write command = "
                               "[\"/bin/sh\", \"-c\", \"...\"]");
      } else {
        word += c;
        in_word = true;
        ++i;
      }
    }
    if (in_word) words.push_back(std::move(word));
    return true;
  };
  if (!run()) return std::nullopt;
  return words;
}

}  // namespace slipway::core
