// InfoArray and the small readers of libpmix's info arrays (info_array.hpp).
#include "info_array.hpp"

#include <pmix.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace slipway::pmix::detail {

InfoArray::~InfoArray() {
  for (pmix_info_t& info : infos_) PMIx_Value_destruct(&info.value);
}

void InfoArray::add(const char* key, const void* value, pmix_data_type_t type) {
  pmix_info_t info;
  std::memset(&info, 0, sizeof info);
  if (PMIx_Info_load(&info, key, value, type) != PMIX_SUCCESS) throw std::bad_alloc();
  infos_.push_back(info);
}

void InfoArray::add_string(const char* key, const std::string& value) {
  add(key, value.c_str(), PMIX_STRING);
}
void InfoArray::add_u32(const char* key, std::uint32_t value) { add(key, &value, PMIX_UINT32); }
void InfoArray::add_u16(const char* key, std::uint16_t value) { add(key, &value, PMIX_UINT16); }
void InfoArray::add_int(const char* key, int value) { add(key, &value, PMIX_INT); }
void InfoArray::add_bool(const char* key, bool value) { add(key, &value, PMIX_BOOL); }
void InfoArray::add_rank(const char* key, pmix_rank_t value) { add(key, &value, PMIX_PROC_RANK); }
void InfoArray::add_proc(const char* key, const pmix_proc_t& value) { add(key, &value, PMIX_PROC); }
void InfoArray::add_proc_state(const char* key, pmix_proc_state_t value) {
  add(key, &value, PMIX_PROC_STATE);
}

void InfoArray::add_array(const char* key, const InfoArray& elements) {
  pmix_data_array_t array;
  array.type = PMIX_INFO;
  array.size = elements.size();
  array.array = const_cast<pmix_info_t*>(elements.data());  // copied, not kept
  add(key, &array, PMIX_DATA_ARRAY);
}

namespace {
const pmix_info_t* find(const pmix_info_t info[], std::size_t ninfo, const char* key) {
  if (info == nullptr) return nullptr;
  for (std::size_t i = 0; i < ninfo; ++i) {
    if (std::strncmp(info[i].key, key, PMIX_MAX_KEYLEN) == 0) return &info[i];
  }
  return nullptr;
}
}  // namespace

bool info_flag(const pmix_info_t info[], std::size_t ninfo, const char* key, bool fallback) {
  const pmix_info_t* found = find(info, ninfo, key);
  if (!found) return fallback;
  // A key given with no value means "true" (pmix_check_true's rule).
  if (found->value.type == PMIX_UNDEF) return true;
  if (found->value.type == PMIX_BOOL) return found->value.data.flag;
  return fallback;
}

std::optional<long long> info_integer(const pmix_info_t info[], std::size_t ninfo, const char* key) {
  const pmix_info_t* found = find(info, ninfo, key);
  if (!found) return std::nullopt;
  const pmix_value_t& v = found->value;
  switch (v.type) {
    case PMIX_INT: return v.data.integer;
    case PMIX_INT8: return v.data.int8;
    case PMIX_INT16: return v.data.int16;
    case PMIX_INT32: return v.data.int32;
    case PMIX_INT64: return v.data.int64;
    case PMIX_UINT: return v.data.uint;
    case PMIX_UINT8: return v.data.uint8;
    case PMIX_UINT16: return v.data.uint16;
    case PMIX_UINT32: return v.data.uint32;
    case PMIX_UINT64: return static_cast<long long>(v.data.uint64);
    case PMIX_SIZE: return static_cast<long long>(v.data.size);
    default: return std::nullopt;
  }
}

std::string proc_nspace(const pmix_proc_t& proc) {
  return std::string(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN));
}

pmix_proc_t make_proc(const std::string& nspace, pmix_rank_t rank) {
  pmix_proc_t proc;
  std::memset(&proc, 0, sizeof proc);
  std::memcpy(proc.nspace, nspace.data(), std::min<std::size_t>(nspace.size(), PMIX_MAX_NSLEN));
  proc.rank = rank;
  return proc;
}

}  // namespace slipway::pmix::detail
