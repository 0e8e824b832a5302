// InfoArray: the RAII owner of a growing pmix_info_t array (what libpmix
// takes for namespace registration, server init and event notification).
// Values are deep-copied in (PMIx_Info_load) and released on destruction.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slipway::pmix::detail {

class InfoArray {
 public:
  InfoArray() = default;
  InfoArray(const InfoArray&) = delete;
  InfoArray& operator=(const InfoArray&) = delete;
  InfoArray(InfoArray&& other) noexcept : infos_(std::move(other.infos_)) { other.infos_.clear(); }
  InfoArray& operator=(InfoArray&&) = delete;
  ~InfoArray();

  void add_string(const char* key, const std::string& value);
  void add_u32(const char* key, std::uint32_t value);
  void add_u16(const char* key, std::uint16_t value);
  void add_int(const char* key, int value);
  void add_bool(const char* key, bool value);
  void add_rank(const char* key, pmix_rank_t value);
  void add_proc(const char* key, const pmix_proc_t& value);
  void add_proc_state(const char* key, pmix_proc_state_t value);
  // A PMIX_DATA_ARRAY of the infos of `elements` (deep copy).
  void add_array(const char* key, const InfoArray& elements);

  pmix_info_t* data() { return infos_.empty() ? nullptr : infos_.data(); }
  const pmix_info_t* data() const { return infos_.empty() ? nullptr : infos_.data(); }
  std::size_t size() const { return infos_.size(); }

 private:
  void add(const char* key, const void* value, pmix_data_type_t type);
  std::vector<pmix_info_t> infos_;
};

// Reading directives out of an info array libpmix handed us.
bool info_flag(const pmix_info_t info[], std::size_t ninfo, const char* key, bool fallback);
// An integer directive (PMIX_TIMEOUT, PMIX_WAIT ...), any integer type.
std::optional<long long> info_integer(const pmix_info_t info[], std::size_t ninfo, const char* key);

std::string proc_nspace(const pmix_proc_t& proc);
pmix_proc_t make_proc(const std::string& nspace, pmix_rank_t rank);

}  // namespace slipway::pmix::detail
