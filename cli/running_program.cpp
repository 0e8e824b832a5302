// Connecting to a running program's rendezvous as an observer.
#include "running_program.hpp"

#include <cstdlib>
#include <stdexcept>

#include "slipway/core/contract.hpp"
#include "slipway/launch/run_directory.hpp"
#include "slipway/rendezvous/token.hpp"

namespace slipway::cli {

std::unique_ptr<rendezvous::Client> connect_to_program(const std::string& which,
                                                       const std::string& run_root) {
  const char* endpoint = std::getenv(core::env::kRendezvous);
  if (which.empty() && endpoint && *endpoint && std::getenv(core::env::kToken)) {
    return rendezvous::Client::connect_observer_from_environment();
  }
  std::string root = run_root.empty() ? launch::default_run_root() : run_root;
  std::string error;
  auto dir = launch::find_run_directory(root, which, &error);
  if (!dir) throw std::runtime_error(error);
  auto contact = launch::read_contact(*dir);
  if (!contact) throw std::runtime_error("no rendezvous contact in " + *dir + " (is it a run directory?)");
  try {
    return rendezvous::Client::connect_observer(contact->endpoint, contact->token);
  } catch (const std::exception& e) {
    throw std::runtime_error("the program of " + *dir + " is not running (" + e.what() + ")");
  }
}

}  // namespace slipway::cli
