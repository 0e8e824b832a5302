// The launcher's event record, status publishing and observe endpoint
// (program_observer.hpp).
#include "slipway/launch/program_observer.hpp"

#include <nlohmann/json.hpp>

#include "slipway/core/contract.hpp"
#include "slipway/observe/observe_endpoint.hpp"
#include "slipway/observe/prometheus_targets.hpp"

namespace slipway::launch {

std::string observe_address(const std::string& flag, const core::Program& program) {
  if (flag == "none") return {};
  if (!flag.empty()) return flag;
  if (program.metrics_port.value >= 0) return "127.0.0.1:" + std::to_string(program.metrics_port.value);
  return "127.0.0.1:0";
}

ProgramObserver::ProgramObserver(const std::string& run_directory, const std::string& program,
                                 const ObserveOptions& options,
                                 std::function<void(const std::string&, const std::string&)> put)
    : run_directory_(run_directory),
      options_(options),
      put_(std::move(put)),
      events_(observe::events_path(run_directory), program) {
  if (options_.address.empty()) return;
  observe::ObserveEndpointOptions endpoint;
  endpoint.address = options_.address;
  endpoint.run_directory = run_directory;
  endpoint.view_token = observe::ensure_view_token(run_directory);
  endpoint.version = SLIPWAY_VERSION;
  endpoint_ = std::make_unique<observe::ObserveEndpoint>(std::move(endpoint));
  if (!options_.run_root.empty()) {
    std::string host = url().substr(7);  // "HOST:PORT/"
    host.pop_back();
    targets_ = std::make_unique<observe::PrometheusTargets>(run_directory, options_.run_root, program, host);
  }
}

ProgramObserver::~ProgramObserver() = default;

const observe::Event& ProgramObserver::record(observe::Event event) {
  // A change is shown within a moment, not at the next whole second.
  next_publish_ = std::min(next_publish_, Clock::now() + std::chrono::milliseconds(100));
  return events_.append(std::move(event));
}

void ProgramObserver::publish(observe::ProgramStatus status, Clock::time_point now) {
  next_publish_ = now + options_.interval;
  status.metrics = url();
  const std::size_t keep = std::min<std::size_t>(events_.recent().size(), 20);
  status.events.assign(events_.recent().end() - static_cast<std::ptrdiff_t>(keep), events_.recent().end());
  auto shared = std::make_shared<const observe::ProgramStatus>(std::move(status));
  if (endpoint_) endpoint_->publish(shared);
  put_(std::string(core::keys::kObserveStatus),
       observe::to_json(*shared).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string ProgramObserver::url() const { return endpoint_ ? endpoint_->url() : std::string(); }
bool ProgramObserver::loopback() const { return !endpoint_ || endpoint_->loopback(); }

const std::optional<observe::LastExit> ProgramObserver::last_exit(const std::string& task) const {
  auto it = last_exits_.find(task);
  if (it == last_exits_.end()) return std::nullopt;
  return it->second;
}

}  // namespace slipway::launch
