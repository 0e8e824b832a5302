// The page's files (observe/page/: HTML, JavaScript, CSS), built into the
// binary so that the endpoint serves them wherever slipway runs.
#pragma once

#include <string_view>

namespace slipway::observe {

struct PageFile {
  std::string_view name;          // "index.html", "page.js", "page.css"
  std::string_view content_type;
  std::string_view content;
};

// Nothing when the page has no such file.
const PageFile* find_page_file(std::string_view name);

}  // namespace slipway::observe
