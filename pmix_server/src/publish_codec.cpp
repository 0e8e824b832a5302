// Packing published data with libpmix's own codec (publish_codec.hpp).
#include "publish_codec.hpp"

#include <pmix.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace slipway::pmix::detail {
namespace {

// RAII over a stack pmix_data_buffer_t.
struct DataBuffer {
  pmix_data_buffer_t buffer;
  DataBuffer() { std::memset(&buffer, 0, sizeof buffer); }
  ~DataBuffer() { std::free(buffer.base_ptr); }
  DataBuffer(const DataBuffer&) = delete;
  DataBuffer& operator=(const DataBuffer&) = delete;
};

}  // namespace

bool is_publish_directive(const char* key) { return std::strncmp(key, "pmix", 4) == 0; }

std::string pack_published(const pmix_proc_t& publisher, const pmix_value_t& value) {
  DataBuffer b;
  pmix_proc_t proc = publisher;
  pmix_value_t copy = value;  // shallow: PMIx_Data_pack only reads it
  if (PMIx_Data_pack(nullptr, &b.buffer, &proc, 1, PMIX_PROC) != PMIX_SUCCESS ||
      PMIx_Data_pack(nullptr, &b.buffer, &copy, 1, PMIX_VALUE) != PMIX_SUCCESS) {
    throw std::bad_alloc();
  }
  pmix_byte_object_t bytes{nullptr, 0};
  if (PMIx_Data_unload(&b.buffer, &bytes) != PMIX_SUCCESS) throw std::bad_alloc();
  std::string out(bytes.bytes ? bytes.bytes : "", bytes.size);
  std::free(bytes.bytes);
  return out;
}

bool unpack_published(const std::string& packed, const std::string& key, pmix_pdata_t* out) {
  std::memset(out, 0, sizeof *out);
  if (packed.empty()) return false;
  DataBuffer b;
  // PMIx_Data_load takes ownership of a malloc'd payload.
  pmix_byte_object_t bytes;
  bytes.bytes = static_cast<char*>(std::malloc(packed.size()));
  if (bytes.bytes == nullptr) return false;
  std::memcpy(bytes.bytes, packed.data(), packed.size());
  bytes.size = packed.size();
  if (PMIx_Data_load(&b.buffer, &bytes) != PMIX_SUCCESS) {
    std::free(bytes.bytes);
    return false;
  }
  int32_t count = 1;
  if (PMIx_Data_unpack(nullptr, &b.buffer, &out->proc, &count, PMIX_PROC) != PMIX_SUCCESS) return false;
  count = 1;
  if (PMIx_Data_unpack(nullptr, &b.buffer, &out->value, &count, PMIX_VALUE) != PMIX_SUCCESS) {
    return false;
  }
  std::strncpy(out->key, key.c_str(), PMIX_MAX_KEYLEN);
  out->key[PMIX_MAX_KEYLEN] = '\0';
  return true;
}

}  // namespace slipway::pmix::detail
