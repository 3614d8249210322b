// A scan of the <object> tags of an hwloc XML export for what hwloc does not check itself.
#include "io/hwloc_xml_check.h"
#include "io/input_error.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace treematch::io {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

std::string hwloc_xml_problem(std::string_view xml) {
  std::size_t objects = 0;
  std::size_t line = 1;  // line of position `counted_to`
  std::size_t counted_to = 0;
  for (std::size_t at = xml.find("<object"); at != std::string_view::npos;
       at = xml.find("<object", at + 1)) {
    const std::size_t name_end = at + 7;
    if (name_end < xml.size() && !is_space(xml[name_end]) && xml[name_end] != '>' &&
        xml[name_end] != '/') {
      continue;  // another tag name starting with "object"
    }
    ++objects;
    line +=
        static_cast<std::size_t>(std::count(xml.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                            xml.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    counted_to = at;
    const std::string where =
        "object " + std::to_string(objects) + " (line " + std::to_string(line) + ")";
    bool cpuset = false;
    bool complete_cpuset = false;
    bool nodeset = false;
    bool complete_nodeset = false;
    bool type = false;
    std::size_t pos = name_end;
    while (true) {
      while (pos < xml.size() && is_space(xml[pos])) ++pos;
      if (pos >= xml.size()) return where + " is not closed";
      if (xml[pos] == '>' || xml[pos] == '/') break;
      const std::size_t name_begin = pos;
      while (pos < xml.size() && xml[pos] != '=' && !is_space(xml[pos]) && xml[pos] != '>') ++pos;
      const std::string_view name = xml.substr(name_begin, pos - name_begin);
      if (pos >= xml.size() || xml[pos] != '=' || pos + 1 >= xml.size() ||
          (xml[pos + 1] != '"' && xml[pos + 1] != '\'')) {
        return where + " has an attribute '" + excerpt(name, 24) + "' without a quoted value";
      }
      const char quote = xml[pos + 1];
      const std::size_t value_end = xml.find(quote, pos + 2);
      if (value_end == std::string_view::npos) return where + " has an unterminated value";
      if (name == "cpuset") cpuset = true;
      if (name == "complete_cpuset") complete_cpuset = true;
      if (name == "nodeset") nodeset = true;
      if (name == "complete_nodeset") complete_nodeset = true;
      if (name == "type") type = true;
      pos = value_end + 1;
    }
    if (!type) return where + " has no type";
    if (cpuset != complete_cpuset) {
      return where + " has " +
             (cpuset ? "a cpuset but no complete_cpuset" : "a complete_cpuset but no cpuset");
    }
    if (nodeset != complete_nodeset) {
      return where + " has " +
             (nodeset ? "a nodeset but no complete_nodeset" : "a complete_nodeset but no nodeset");
    }
  }
  return {};
}

}  // namespace treematch::io
