// libFuzzer target for `slipway top`'s reading of a status document (what a
// launcher publishes, or a --file someone wrote). Properties checked on
// every input: reading never crashes, reads out of bounds or recurses
// without bound (ASan/UBSan); a refusal says why; the reader accepts what
// nlohmann::json accepts and reads the same values, and accepts nothing
// else but texts with bytes beyond ASCII or \u escapes (see below); what
// the model takes renders at any size.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "top_json.hpp"
#include "top_model.hpp"
#include "top_view.hpp"

using namespace slipway::cli::top;

namespace {

bool same(const json::Value& v, const nlohmann::json& n) {
  switch (v.type()) {
    case json::Type::null: return n.is_null();
    case json::Type::boolean: return n.is_boolean() && n.get<bool>() == v.boolean();
    case json::Type::number:
      if (!n.is_number()) return false;
      if (v.is_integer()) return n.is_number_integer() && !(n.is_number_unsigned() && n.get<std::uint64_t>() > INT64_MAX) &&
                                 n.get<std::int64_t>() == v.integer();
      return n.get<double>() == v.number();
    case json::Type::string: return n.is_string() && n.get<std::string>() == v.string();
    case json::Type::array: {
      if (!n.is_array() || n.size() != v.size()) return false;
      std::size_t i = 0;
      for (json::Value e : v) {
        if (!same(e, n[i++])) return false;
      }
      return true;
    }
    case json::Type::object: {
      if (!n.is_object()) return false;
      const bool duplicates = n.size() != v.size();  // nlohmann keeps the last, this reader finds the first
      for (json::Value m : v) {
        auto it = n.find(m.key());
        if (it == n.end() || (!duplicates && !same(m, *it))) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Where the two may differ: nlohmann checks UTF-8, refuses a lone
  // surrogate escape, skips a byte order mark and ends the text at a NUL
  // byte; this reader does none of these (and overflow, above).
  bool plain = text.find("\\u") == std::string::npos;
  for (unsigned char c : text) plain = plain && c < 0x80;
  const bool quirk = text.rfind("\xEF\xBB\xBF", 0) == 0 || text.find('\0') != std::string::npos;

  nlohmann::json theirs = nlohmann::json::value_t::discarded;
  bool overflow = false;  // a number beyond a double: nlohmann refuses it, this reader reads infinity
  try {
    theirs = nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range&) {
    overflow = true;
  } catch (const nlohmann::json::exception&) {
  }
  try {
    json::Document ours(text, size + 1);  // no depth bound here: nlohmann has none
    if (theirs.is_discarded() && plain && !overflow) std::abort();
    if (!theirs.is_discarded() && !quirk && !same(ours.root(), theirs)) std::abort();
  } catch (const std::runtime_error& e) {
    if (std::strncmp(e.what(), "not valid JSON at byte ", 23) != 0) std::abort();
    if (!theirs.is_discarded() && !quirk) std::abort();
  }

  Model model;
  try {
    model.update(text);
  } catch (const std::runtime_error& e) {
    if (std::strncmp(e.what(), "status document: ", 17) != 0) std::abort();
    return 0;
  }
  for (std::size_t rows : {0, 1, 5, 40}) {
    ViewState view;
    view.filter = model.status().nodes.empty() ? "" : model.status().nodes.front().name;
    const auto lines = render(model, view, rows, rows ? 60 : 0, 0);
    if (rows && lines.size() != rows) std::abort();
    view.filter.clear();
    render(model, view, rows, rows ? 60 : 0, 3600);
  }
  return 0;
}
