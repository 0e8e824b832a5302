// How published PMIx data travels through the control plane: the
// publisher's proc and the pmix_value_t, packed by libpmix itself
// (PMIx_Data_pack) so every value type survives, in one opaque string.
#pragma once

#include <pmix_common.h>

#include <string>

namespace slipway::pmix::detail {

// True for the publish/lookup directives libpmix or the caller add
// (PMIX_RANGE, PMIX_PERSISTENCE, PMIX_TIMEOUT, PMIX_USERID, ...): every key
// in the reserved "pmix" prefix. The rest is data to publish.
bool is_publish_directive(const char* key);

std::string pack_published(const pmix_proc_t& publisher, const pmix_value_t& value);

// Fills `out` (proc, key, value) from what pack_published made; false on
// malformed input. The caller releases out->value with PMIx_Value_destruct.
bool unpack_published(const std::string& packed, const std::string& key, pmix_pdata_t* out);

}  // namespace slipway::pmix::detail
