// `slipway top`'s status documents from a running program or a file (see
// top_source.hpp).
#include "top_source.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "running_program.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/rendezvous/error.hpp"

namespace slipway::cli::top {
namespace {

// As large as a rendezvous value may be.
constexpr std::size_t kMaxDocumentBytes = 4u << 20;

class ProgramStatus final : public StatusSource {
 public:
  ProgramStatus(const std::string& which, const std::string& run_root) {
    rendezvous::ClientOptions options;
    options.request_timeout = std::chrono::seconds(5);  // a hung launcher shows as no update
    try {
      client_ = connect_to_program(which, run_root, options, &run_directory_);
    } catch (const std::runtime_error& e) {
      // A run directory found whose program does not answer: it has ended.
      if (run_directory_.empty()) throw;
      gone_ = true;
      gone_message_ = e.what();
    }
  }

  Fetch fetch() override {
    if (gone_) return {Fetch::Kind::gone, {}, gone_message_};
    try {
      auto value = client_->get(std::string(core::keys::kObserveStatus));
      if (!value) {
        return {Fetch::Kind::missing, {},
                "the program publishes no status document yet (rendezvous key " +
                    std::string(core::keys::kObserveStatus) + ")"};
      }
      return {Fetch::Kind::document, std::move(*value), {}};
    } catch (const rendezvous::Error& e) {
      if (e.status() == rendezvous::Status::timeout) {
        return {Fetch::Kind::missing, {}, std::string("the program's rendezvous did not answer: ") + e.what()};
      }
      gone_ = true;
      gone_message_ = std::string("the program has ended (") + e.what() + ")";
      client_.reset();
      return {Fetch::Kind::gone, {}, gone_message_};
    }
  }

  const std::string& run_directory() const override { return run_directory_; }

 private:
  std::unique_ptr<rendezvous::Client> client_;
  std::string run_directory_;
  bool gone_ = false;
  std::string gone_message_;
};

class FileStatus final : public StatusSource {
 public:
  explicit FileStatus(std::string path) : path_(std::move(path)) {}

  Fetch fetch() override {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path_ + ": " + std::strerror(errno));
    std::string text;
    char chunk[65536];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
      text.append(chunk, static_cast<std::size_t>(in.gcount()));
      if (text.size() > kMaxDocumentBytes) {
        throw std::runtime_error(path_ + ": larger than a status document may be (4 MiB)");
      }
    }
    return {Fetch::Kind::document, std::move(text), {}};
  }

  const std::string& run_directory() const override { return run_directory_; }

 private:
  std::string path_;
  std::string run_directory_;
};

}  // namespace

std::unique_ptr<StatusSource> program_status(const std::string& which, const std::string& run_root) {
  return std::make_unique<ProgramStatus>(which, run_root);
}

std::unique_ptr<StatusSource> file_status(const std::string& path) {
  return std::make_unique<FileStatus>(path);
}

}  // namespace slipway::cli::top
