// Reading and writing the checkpoint notice's JSON (checkpoint_notice.hpp).
#include "slipway/core/checkpoint_notice.hpp"

#include <nlohmann/json.hpp>

#include "slipway/core/topology.hpp"

namespace slipway::core {

bool hears_notices(const NodeSpec& node) {
  return node.notice_signal.value != 0 || node.type.value == NodeType::replay;
}

std::string format_notice(const CheckpointNotice& notice) {
  nlohmann::json j;
  j["seq"] = notice.seq;
  j["reason"] = notice.reason.substr(0, kMaxReasonBytes);
  j["deadline_unix_ms"] = notice.deadline_unix_ms;
  j["stop"] = notice.stop;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<CheckpointNotice> parse_notice(std::string_view text) {
  if (text.size() > kMaxNoticeBytes) return std::nullopt;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto seq = j.find("seq");
  const auto reason = j.find("reason");
  const auto deadline = j.find("deadline_unix_ms");
  const auto stop = j.find("stop");
  if (seq == j.end() || !seq->is_number_unsigned() || reason == j.end() || !reason->is_string() ||
      deadline == j.end() || !deadline->is_number_integer() || stop == j.end() || !stop->is_boolean()) {
    return std::nullopt;
  }
  CheckpointNotice notice;
  notice.seq = seq->get<std::uint64_t>();
  notice.reason = reason->get<std::string>();
  notice.deadline_unix_ms = deadline->get<std::int64_t>();
  notice.stop = stop->get<bool>();
  if (notice.seq == 0 || notice.reason.size() > kMaxReasonBytes) return std::nullopt;
  return notice;
}

}  // namespace slipway::core
