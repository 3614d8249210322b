// Escaping text for HTML pages (the report).
#pragma once

#include <string>
#include <string_view>

namespace treematch::io {

/// `text` with &, <, >, " and ' replaced by their entities: safe in element text and attributes.
std::string escape(std::string_view text);

}  // namespace treematch::io
