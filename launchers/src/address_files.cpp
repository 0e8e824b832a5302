// AddressFiles: RUN/addrs/NODE.PORT from the rendezvous's address keys (see
// address_files.hpp).
#include "address_files.hpp"

#include "progress_lines.hpp"
#include "slipway/core/contract.hpp"
#include "slipway/core/environment.hpp"

namespace slipway::launch {

AddressFiles::AddressFiles(const core::Program& program, const RunDirectory& run_dir, Lookup lookup)
    : program_(program), run_dir_(run_dir), lookup_(std::move(lookup)) {
  for (const core::NodeSpec& node : program_.nodes) {
    for (const auto& handle : node.handles) handled_.insert(handle.value);
  }
}

void AddressFiles::write(const std::string& node, const core::Plan& live_plan) {
  if (!handled_.count(node)) return;
  const core::NodeSpec* target = program_.find_node(node);
  if (target == nullptr || target->ports.empty()) return;
  const auto replicas = live_plan.tasks_of(node);
  for (const auto& port : target->ports) {
    std::vector<std::string> keys;
    keys.reserve(replicas.size());
    for (const core::Task* t : replicas) keys.push_back(core::keys::address(node, t->replica, port.value));
    std::string content;
    for (const auto& value : lookup_(keys)) {
      if (value) content += *value + "\n";
    }
    const std::string name = core::address_file_name(node, port.value);
    auto [it, fresh] = written_.try_emplace(name);
    if (!fresh && it->second == content) continue;
    try {
      run_dir_.write_file("addrs/" + name, content);
      it->second = std::move(content);
    } catch (const std::exception& e) {
      say("the live addresses of " + node + " are not written: " + e.what());
    }
  }
}

bool AddressFiles::changed(const std::string& node) {
  const bool first = changed_.empty();
  changed_.insert(node);
  return first;
}

void AddressFiles::write_changed(const core::Plan& live_plan) {
  for (const std::string& node : changed_) write(node, live_plan);
  changed_.clear();
}

}  // namespace slipway::launch
