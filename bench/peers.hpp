// The peers of the benchmarks: the programs and files slipway-bench runs
// beside itself (our own, from the build tree or an installation, and a few
// from Debian packages), where each is looked for, and how to get one that
// is missing. `slipway-bench --peers` lists them all.
//
// Contract: a peer of ours is looked for only relative to the running
// slipway-bench, in the layout of the build tree (build/bin, build/share)
// and of `cmake --install` (bin, libexec/slipway, share/slipway/bench, the
// SPANK plugin directory), never in the source or build tree of an installed
// copy; a Debian one in PATH.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace slipway::bench {

struct Peer {
  std::string name;            // "slipway-grpc-echo", "rendezvous_tcpstore.py", ...
  std::string benchmarks;      // the benchmarks that run it, "rpc"
  std::string how_to_install;  // what to do when it is missing
};

// Every peer, in a fixed order.
const std::vector<Peer>& peers();

// The path of peer `name`, or nothing when it is missing (or unknown).
std::optional<std::string> find_peer(const std::string& name);

// "peer NAME of slipway-bench BENCHMARKS is missing (looked in ...): HOW".
std::string missing_peer_message(const std::string& name);

// The places find_peer looks for `name`, in order.
std::vector<std::string> peer_candidates(const std::string& name);

// `slipway-bench --peers`: one line per peer, found or missing; returns 0
// when every peer was found, 1 otherwise.
int print_peers();

}  // namespace slipway::bench
