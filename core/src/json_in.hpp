// Strict reading of the plan JSON (plan_json.cpp) and of the parts other
// files write into it (a replay node's configuration, replay_config.cpp):
// every accessor checks a field's type and bounds and throws PlanJsonError
// naming the JSON path it failed at ("plan JSON: plan.tasks[2].host: ...";
// the label in front is what is read: "plan JSON", or
// "SLIPWAY_REPLAY_CONFIG" when slipway-replay reads its configuration).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "limits.hpp"
#include "slipway/core/diagnostic.hpp"
#include "slipway/core/plan_json.hpp"

namespace slipway::core {

using nlohmann::json;

class In {
 public:
  In(const json& j, std::string path, std::string label = "plan JSON")
      : j_(j), path_(std::move(path)), label_(std::move(label)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    const std::string where = child(key);
    throw PlanJsonError(label_ + ": " + (where.empty() ? "" : where + ": ") + what);
  }
  bool has(const std::string& key) const { return j_.is_object() && j_.contains(key); }
  const json& field(const std::string& key) const {
    if (!j_.is_object()) fail("", "must be an object");
    auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    return *it;
  }
  In object(const std::string& key) const {
    const json& v = field(key);
    if (!v.is_object()) fail(key, "must be an object");
    return In(v, child(key), label_);
  }
  std::vector<In> array(const std::string& key, std::size_t max) const {
    const json& v = field(key);
    if (!v.is_array()) fail(key, "must be an array");
    if (v.size() > max) fail(key, "has more than " + std::to_string(max) + " entries");
    std::vector<In> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.emplace_back(v[i], child(key) + "[" + std::to_string(i) + "]", label_);
    return out;
  }
  std::string string(const std::string& key) const { return as_string(field(key), key); }
  std::string as_string(const json& v, const std::string& key) const {
    if (!v.is_string()) fail(key, "must be a string");
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > limits::kMaxStringLength) fail(key, "is too long");
    return s;
  }
  std::uint64_t uint(const std::string& key, std::uint64_t max) const { return as_uint(field(key), key, max); }
  std::uint64_t as_uint(const json& v, const std::string& key, std::uint64_t max) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
      fail(key, "must be a non-negative integer");
    }
    const auto value = v.get<std::uint64_t>();
    if (value > max) fail(key, "must be at most " + std::to_string(max));
    return value;
  }
  std::uint32_t u32(const std::string& key, std::uint64_t max) const {
    return static_cast<std::uint32_t>(uint(key, max));
  }
  // A finite number from min to max.
  double number(const std::string& key, double min, double max) const {
    const json& v = field(key);
    if (!v.is_number()) fail(key, "must be a number");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < min || x > max) {
      fail(key, "must be a finite number from " + json(min).dump() + " to " + json(max).dump());
    }
    return x;
  }
  bool boolean(const std::string& key) const {
    const json& v = field(key);
    if (!v.is_boolean()) fail(key, "must be true or false");
    return v.get<bool>();
  }
  std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> out;
    for (const In& e : array(key, limits::kMaxListLength)) out.push_back(e.as_string(e.j_, ""));
    return out;
  }
  std::vector<std::uint32_t> u32s(const std::string& key, std::uint64_t max) const {
    std::vector<std::uint32_t> out;
    for (const In& e : array(key, limits::kMaxListLength)) {
      out.push_back(static_cast<std::uint32_t>(e.as_uint(e.j_, "", max)));
    }
    return out;
  }
  const json& raw() const { return j_; }
  const std::string& path() const { return path_; }

 private:
  std::string child(const std::string& key) const {
    if (key.empty()) return path_;
    return path_.empty() ? key : path_ + "." + key;
  }

  const json& j_;
  std::string path_;
  std::string label_;
};

template <class T>
Located<T> at_unknown(T value) {
  return Located<T>{std::move(value), {}};
}

}  // namespace slipway::core
