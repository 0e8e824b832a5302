// AddressFiles: the live address files of a run, RUN/addrs/NODE.PORT, one
// per port of each node that some node handles (docs/channels.md): the
// addresses its live replicas published to the rendezvous, one a line, in
// replica order. A task that holds a handle reads its peers there.
//
// Contract: write(node) rewrites the node's files whose content changed
// (atomically, RunDirectory::write_file), from the keys `lookup` reads, for
// the replicas the live plan holds; a file that cannot be written is said
// (progress_lines.hpp) and tried again at the next write. changed(node)
// marks a node for write_changed(), which writes every marked node once:
// many address keys heard in one turn cost one write per node. changed()
// returns whether the node is the first marked since the last
// write_changed().
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "slipway/core/plan.hpp"
#include "slipway/launch/run_directory.hpp"

namespace slipway::launch {

class AddressFiles {
 public:
  using Lookup = std::function<std::vector<std::optional<std::string>>(const std::vector<std::string>& keys)>;

  AddressFiles(const core::Program& program, const RunDirectory& run_dir, Lookup lookup);

  // Whether any node is handled (no file is ever written otherwise).
  bool any() const { return !handled_.empty(); }
  void write(const std::string& node, const core::Plan& live_plan);
  bool changed(const std::string& node);
  void write_changed(const core::Plan& live_plan);

 private:
  const core::Program& program_;
  const RunDirectory& run_dir_;
  Lookup lookup_;
  std::set<std::string> handled_;               // nodes some node handles
  std::map<std::string, std::string> written_;  // by file name: what it holds now
  std::set<std::string> changed_;               // nodes marked since the last write_changed()
};

}  // namespace slipway::launch
