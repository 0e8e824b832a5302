// Builders for the contract's per-port and per-key names (contract.hpp).
#include "slipway/core/contract.hpp"

#include "slipway/core/topology.hpp"

namespace slipway::core::env {

std::string port_variable(std::string_view port) { return kPortPrefix + env_name_part(port); }

std::string address_variable(std::string_view node, std::string_view port) {
  return kAddressPrefix + env_name_part(node) + "_" + env_name_part(port);
}

std::string address_file_variable(std::string_view node, std::string_view port) {
  return kAddressFilePrefix + env_name_part(node) + "_" + env_name_part(port);
}

}  // namespace slipway::core::env

namespace slipway::core::keys {

namespace {
std::string join(std::string_view prefix, std::string_view a, std::uint64_t n) {
  std::string key(prefix);
  key.append(a).append("/").append(std::to_string(n));
  return key;
}
}  // namespace

std::string address(std::string_view node, std::uint32_t replica, std::string_view port) {
  return join(kAddressPrefix, node, replica) + "/" + std::string(port);
}

std::string stop(std::string_view node, std::uint32_t replica) { return join(kStopPrefix, node, replica); }

std::string epoch(std::string_view node) { return std::string(kEpochPrefix) + std::string(node); }

std::string live(std::string_view node) { return std::string(kLivePrefix) + std::string(node); }

std::string scale(std::string_view node) { return std::string(kScalePrefix) + std::string(node); }

std::string usage(std::string_view node, std::uint32_t replica) {
  return std::string(kUsagePrefix) + std::string(node) + "." + std::to_string(replica);
}

std::string replay_stats(std::string_view node, std::uint32_t replica) {
  return std::string(kReplayStatsPrefix) + std::string(node) + "." + std::to_string(replica);
}

std::string satellite(std::string_view job_id) {
  return std::string(kSatellitePrefix) + std::string(job_id);
}

std::string ucx_address(std::string_view node, std::uint32_t replica) {
  return join(kUcxPrefix, node, replica);
}

std::string ucx_replicas(std::string_view node) {
  return std::string(kUcxReplicasPrefix) + std::string(node);
}

std::string pmix_modex(std::string_view nspace, std::uint32_t rank) {
  return std::string(kPmixPrefix) + std::string(nspace) + "/modex/" + std::to_string(rank);
}

std::string pmix_published(std::string_view nspace, std::string_view key) {
  return std::string(kPmixPrefix) + std::string(nspace) + "/pub/" + std::string(key);
}

std::string pmix_collective(std::string_view nspace, std::string_view kind,
                            std::string_view signature, std::uint64_t n) {
  return std::string(kPmixPrefix) + std::string(nspace) + "/" + std::string(kind) + "/" +
         std::string(signature) + "/" + std::to_string(n);
}

}  // namespace slipway::core::keys
