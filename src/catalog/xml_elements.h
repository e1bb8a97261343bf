// The XML subset that machine-written files use (NCCL's topology dump, NCCL_TOPO_DUMP_FILE):
// elements with attributes, self-closing (`<a k="v"/>`) or closed (`<a>...</a>`), comments
// (`<!-- -->`) and an optional `<?xml ...?>` prolog. Nothing else: no text between elements, no
// DOCTYPE, CDATA or processing instructions after the prolog, and of entities only the five
// predefined ones (&lt; &gt; &amp; &quot; &apos;). Not a general XML reader, and no dependency:
// Debian ships no small XML library this project uses, and this subset is a page of code.
//
// Strict: whatever falls outside the subset throws Error("FILE:LINE: ...") saying what was
// expected there. Nesting is limited to 64 elements (NCCL's dumps nest about 8 deep).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // in file order, names unique
  std::vector<XmlElement> children;
  int line = 0;  // of the '<' that opens it

  // The attribute's value, or nullptr when the element has none of that name.
  const std::string* attribute(std::string_view key) const;
};

// The one root element of `text`; `file` names it in errors.
XmlElement parse_xml(std::string_view text, const std::string& file);

}  // namespace gpuplan
