// Where `slipway top` gets the status document from: the running program's
// rendezvous (program key observe/status, one get per call), or a file
// that holds one (`slipway status --json > FILE`), read again on each call.
#pragma once

#include <memory>
#include <string>

namespace slipway::cli::top {

struct Fetch {
  enum class Kind { document, missing, gone };
  Kind kind = Kind::missing;
  std::string text;     // document: the document
  std::string message;  // missing, gone: what happened, for the screen
};

class StatusSource {
 public:
  virtual ~StatusSource() = default;
  virtual Fetch fetch() = 0;
  // The run directory, for the task logs (empty: take the document's).
  virtual const std::string& run_directory() const = 0;
};

// The program `which` names (as for `slipway status`). Throws
// std::runtime_error when it is not found; a run whose program does not
// answer (it has ended) fetches as gone.
std::unique_ptr<StatusSource> program_status(const std::string& which, const std::string& run_root);

// A file holding a status document (at most 4 MiB; read errors throw
// std::runtime_error naming the file).
std::unique_ptr<StatusSource> file_status(const std::string& path);

}  // namespace slipway::cli::top
