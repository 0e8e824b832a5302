// getopt_long's reading of srun/sbatch/salloc command lines, without side
// effects: which words are options, which are their values, which word ends
// the options; and where slipway's --program is.
#include "slipway/spank/argv_scan.hpp"

#include <array>
#include <string_view>

namespace slipway::spank {
namespace {

constexpr std::array kExtra{kProgramOption};

bool is_help(std::string_view long_name) {
  return long_name == "help" || long_name == "usage" || long_name == "version";
}

class Scanner {
 public:
  Scanner(Tool tool, std::span<const std::string> args) : tool_(tool), args_(args) {}

  ArgvScan run() {
    while (i_ < args_.size()) {
      const std::string& word = args_[i_];
      if (word == "--") {
        ++i_;  // kept below only when an operand follows it
        if (i_ < args_.size()) {
          out_.passthrough.push_back(word);
          set_operand(args_[i_]);
        }
        break;
      }
      if (word.size() >= 2 && word[0] == '-' && word[1] == '-') {
        long_option(word);
      } else if (word.size() >= 2 && word[0] == '-') {
        short_cluster(word);
      } else {
        set_operand(word);
        break;
      }
    }
    // Everything from the operand on belongs to the tool's command line as-is.
    for (; i_ < args_.size(); ++i_) {
      out_.passthrough.push_back(args_[i_]);
    }
    return std::move(out_);
  }

 private:
  void set_operand(const std::string& word) {
    out_.operand = word;
    out_.operand_is_separator = word == ":";
  }

  // "--name", "--name=value" or "--name value" (required values only).
  void long_option(const std::string& word) {
    const std::string_view body = std::string_view(word).substr(2);
    const auto eq = body.find('=');
    const std::string_view name = body.substr(0, eq);
    const auto spec = find_long_option(tool_, name, kExtra);
    const bool is_program = spec && spec->name == kProgramOption.name;
    std::optional<std::string> value;
    std::size_t words = 1;
    if (eq != std::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (spec && spec->kind == ArgKind::required) {
      if (i_ + 1 < args_.size()) {
        value = args_[i_ + 1];
        words = 2;
      } else {
        out_.missing_value = word;
      }
    }
    if (spec && is_help(spec->name)) {
      out_.help_requested = true;
    }
    if (spec && spec->name == "wrap") {
      out_.wraps_command = true;
    }
    if (is_program) {
      if (value) {
        out_.programs.push_back(*value);
      }
    } else {
      for (std::size_t k = 0; k < words; ++k) {
        out_.passthrough.push_back(args_[i_ + k]);
      }
    }
    i_ += words;
  }

  // "-abc", where a value-taking letter takes the rest of the word or, when
  // it is last and its value is required, the next word.
  void short_cluster(const std::string& word) {
    std::size_t words = 1;
    for (std::size_t k = 1; k < word.size(); ++k) {
      const auto spec = find_short_option(tool_, word[k]);
      if (!spec) {
        continue;  // unknown letter: the tool will complain itself
      }
      if (spec->short_name == 'h' || spec->short_name == 'V') {
        out_.help_requested = true;
      }
      if (spec->kind == ArgKind::none) {
        continue;
      }
      if (k + 1 == word.size() && spec->kind == ArgKind::required) {
        if (i_ + 1 < args_.size()) {
          words = 2;
        } else {
          out_.missing_value = word;
        }
      }
      break;  // the rest of the word (if any) is this letter's value
    }
    for (std::size_t k = 0; k < words; ++k) {
      out_.passthrough.push_back(args_[i_ + k]);
    }
    i_ += words;
  }

  Tool tool_;
  std::span<const std::string> args_;
  std::size_t i_ = 0;
  ArgvScan out_;
};

}  // namespace

ArgvScan scan_tool_argv(Tool tool, std::span<const std::string> args) {
  return Scanner(tool, args).run();
}

}  // namespace slipway::spank
