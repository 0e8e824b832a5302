// Connecting to a running program's rendezvous as an observer.
#include "running_program.hpp"
#include "slipway/base/local_address.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "slipway/core/contract.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::cli {

std::unique_ptr<rendezvous::Client> connect_to_program(const std::string& which,
                                                       const std::string& run_root,
                                                       rendezvous::ClientOptions options,
                                                       std::string* run_directory) {
  const char* endpoint = std::getenv(core::env::kRendezvous);
  if (which.empty() && endpoint && *endpoint && std::getenv(core::env::kToken)) {
    if (run_directory) {
      const char* own = std::getenv(core::env::kRunDir);
      *run_directory = own ? own : "";
    }
    return rendezvous::Client::connect_observer_from_environment(std::move(options));
  }
  std::string root = run_root.empty() ? launch::default_run_root() : run_root;
  std::string error;
  auto dir = launch::find_run_directory(root, which, &error);
  if (!dir) throw std::runtime_error(error);
  auto contact = launch::read_contact(*dir);
  if (!contact) throw std::runtime_error("no rendezvous contact in " + *dir + " (is it a run directory?)");
  if (run_directory) *run_directory = *dir;
  try {
    return rendezvous::Client::connect_observer(contact->endpoint, contact->token, std::move(options));
  } catch (const std::exception& e) {
    throw std::runtime_error("the program of " + *dir + " is not running (" + e.what() + ")");
  }
}

std::string requester(const std::string& command) {
  if (const char* node = std::getenv(core::env::kNode)) {
    const char* replica = std::getenv(core::env::kReplica);
    return std::string(node) + "." + (replica ? replica : "?");
  }
  const std::string host = base::this_host_name();
  const char* user = std::getenv("USER");
  return "slipway " + command + " (" + std::string(user ? user : "user") + "@" + host + ")";
}

}  // namespace slipway::cli
