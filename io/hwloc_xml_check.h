// Checks an hwloc XML export before hwloc loads it: hwloc 2.9 crashes on some damaged files.
#pragma once

#include <string>
#include <string_view>

namespace treematch::io {

/// What is wrong with `xml` that hwloc would not survive, in one sentence naming the object and
/// its line, or "" when nothing is found. hwloc 2.9 checks an object's sets only in version 1
/// exports: a version 2 object with a cpuset but no complete_cpuset (or a nodeset but no
/// complete_nodeset, or the other way round) makes it read a null set (SIGSEGV in
/// hwloc_bitmap_compare_first). Checked here for every <object>: the tag is closed, attributes
/// are name="value" pairs, a type is given, and the sets come in pairs. O(size of the text).
std::string hwloc_xml_problem(std::string_view xml);

}  // namespace treematch::io
