// JSON lines of RUN/events.jsonl and their readable form (event_record.hpp).
#include "slipway/observe/event_record.hpp"

#include <ctime>

#include <nlohmann/json.hpp>

namespace slipway::observe {

std::string utc_time(std::int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[80];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(unix_ms % 1000));
  return text;
}

nlohmann::json to_json(const Event& e) {
  nlohmann::json j = {{"seq", e.seq}, {"time", utc_time(e.unix_ms)}, {"unix_ms", e.unix_ms},
                      {"program", e.program}};
  if (!e.node.empty()) j["node"] = e.node;
  if (e.replica) j["replica"] = *e.replica;
  if (e.attempt) j["attempt"] = *e.attempt;
  if (e.epoch) j["epoch"] = *e.epoch;
  if (!e.host.empty()) j["host"] = e.host;
  j["kind"] = e.kind;
  j["cause"] = e.cause.size() > kMaxCauseBytes ? e.cause.substr(0, kMaxCauseBytes) : e.cause;
  return j;
}

std::string to_json_line(const Event& e) {
  // Invalid UTF-8 (a task's output in a cause) is replaced, never thrown.
  return to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::optional<Event> event_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  Event e;
  try {
    e.seq = j.at("seq").get<std::uint64_t>();
    e.unix_ms = j.at("unix_ms").get<std::int64_t>();
    e.program = j.at("program").get<std::string>();
    e.kind = j.at("kind").get<std::string>();
    e.cause = j.value("cause", std::string());
    e.node = j.value("node", std::string());
    e.host = j.value("host", std::string());
    if (j.contains("replica")) e.replica = j["replica"].get<std::uint32_t>();
    if (j.contains("attempt")) e.attempt = j["attempt"].get<int>();
    if (j.contains("epoch")) e.epoch = j["epoch"].get<int>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return e;
}

std::optional<Event> parse_event_line(std::string_view line) {
  if (line.size() > kMaxEventLineBytes) return std::nullopt;
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return event_from_json(j);
}

std::string format_event(const Event& e, bool with_date) {
  std::string time = utc_time(e.unix_ms);
  if (!with_date) time = time.substr(11);
  std::string task = e.node.empty() ? "-" : e.node;
  if (!e.node.empty() && e.replica) task += "." + std::to_string(*e.replica);
  char head[160];
  std::snprintf(head, sizeof head, "%s %-17s %-20s %-7s %-5s %-12s ", time.c_str(), e.kind.c_str(),
                task.c_str(), e.attempt ? std::to_string(*e.attempt).c_str() : "-",
                e.epoch ? std::to_string(*e.epoch).c_str() : "-", e.host.empty() ? "-" : e.host.c_str());
  return head + e.cause;
}

}  // namespace slipway::observe
