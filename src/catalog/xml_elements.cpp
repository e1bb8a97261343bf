#include "catalog/xml_elements.h"

#include <cctype>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {
namespace {

constexpr int kMaxXmlDepth = 64;

bool xml_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool xml_name_char(char c) {
  return xml_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}
bool xml_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A character for an error message: printable as itself, anything else as its code.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

class XmlReader {
 public:
  XmlReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  XmlElement document() {
    skip_misc(true);
    if (at_end()) fail("the file has no element: expected '<system ...>' (an NCCL topology dump)");
    if (!looking_at("<") || looking_at("</")) fail(fmt::format("expected '<' opening the root element, found {}", shown(peek())));
    XmlElement root = element(1);
    skip_misc(false);
    if (!at_end()) fail(fmt::format("expected the end of the file after </{}>, found {}", root.name, shown(peek())));
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}:{}: {}", file_, line_, what)); }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool looking_at(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  void advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  void skip_space() {
    while (!at_end() && xml_space(peek())) advance();
  }
  void expect(char c, const char* what) {
    if (at_end()) fail(fmt::format("the file ends where {} was expected", what));
    if (peek() != c) fail(fmt::format("expected {}, found {}", what, shown(peek())));
    advance();
  }

  // Whitespace, comments and (at the top of the file only) one <?xml ...?> prolog.
  void skip_misc(bool prolog_allowed) {
    for (;;) {
      skip_space();
      if (looking_at("<!--")) {
        const int start = line_;
        for (int i = 0; i < 4; ++i) advance();
        while (!at_end() && !looking_at("-->")) advance();
        if (at_end()) {
          line_ = start;
          fail("a comment '<!--' that is never closed with '-->'");
        }
        for (int i = 0; i < 3; ++i) advance();
      } else if (looking_at("<?")) {
        if (!prolog_allowed || !looking_at("<?xml")) {
          fail("a processing instruction '<?...?>' is only allowed as the '<?xml ...?>' prolog at the top");
        }
        prolog_allowed = false;
        while (!at_end() && !looking_at("?>")) advance();
        if (at_end()) fail("the '<?xml' prolog is never closed with '?>'");
        advance();
        advance();
      } else if (looking_at("<!")) {
        fail("DOCTYPE and CDATA sections are not part of an NCCL topology dump");
      } else {
        return;
      }
    }
  }

  std::string name(const char* what) {
    if (at_end() || !xml_name_start(peek())) {
      fail(fmt::format("expected {} (a letter, '_' or ':' first), found {}", what, at_end() ? "the end of the file" : shown(peek())));
    }
    const std::size_t start = pos_;
    while (!at_end() && xml_name_char(peek())) advance();
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string value() {
    if (at_end() || (peek() != '"' && peek() != '\'')) {
      fail(fmt::format("expected a quoted attribute value (\"...\"), found {}", at_end() ? "the end of the file" : shown(peek())));
    }
    const char quote = peek();
    const int start = line_;
    advance();
    std::string out;
    while (!at_end() && peek() != quote) {
      if (peek() == '<') fail("'<' inside an attribute value (write it as &lt;)");
      if (peek() == '&') {
        static constexpr std::pair<std::string_view, char> kEntities[] = {
            {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool known = false;
        for (const auto& [entity, c] : kEntities) {
          if (looking_at(entity)) {
            out += c;
            for (std::size_t i = 0; i < entity.size(); ++i) advance();
            known = true;
            break;
          }
        }
        if (!known) fail("'&' that starts none of &lt; &gt; &amp; &quot; &apos; in an attribute value");
        continue;
      }
      out += peek();
      advance();
    }
    if (at_end()) {
      line_ = start;
      fail(fmt::format("an attribute value opened with {} is never closed", quote));
    }
    advance();
    return out;
  }

  // At '<' of a start tag: the element and everything up to its end tag.
  XmlElement element(int depth) {
    if (depth > kMaxXmlDepth) fail(fmt::format("elements nest deeper than {}: not an NCCL topology dump", kMaxXmlDepth));
    XmlElement e;
    e.line = line_;
    advance();  // '<'
    e.name = name("an element name after '<'");
    for (;;) {
      const bool spaced = !at_end() && xml_space(peek());
      skip_space();
      if (at_end()) fail(fmt::format("the file ends inside the tag <{}", e.name));
      if (looking_at("/>")) {
        advance();
        advance();
        return e;
      }
      if (peek() == '>') {
        advance();
        break;
      }
      if (!spaced) fail(fmt::format("expected a space, '>' or '/>' in <{}, found {}", e.name, shown(peek())));
      std::string key = name(fmt::format("an attribute name, '>' or '/>' in <{}", e.name).c_str());
      if (e.attribute(key)) fail(fmt::format("attribute '{}' appears twice in <{}>", key, e.name));
      skip_space();
      expect('=', fmt::format("'=' after attribute '{}'", key).c_str());
      skip_space();
      e.attributes.emplace_back(std::move(key), value());
    }
    for (;;) {
      skip_misc(false);
      if (at_end()) {
        line_ = e.line;
        fail(fmt::format("<{}> is never closed (expected </{}>)", e.name, e.name));
      }
      if (peek() != '<') {
        fail(fmt::format("text {} between tags inside <{}>: an NCCL topology dump holds only elements", shown(peek()), e.name));
      }
      if (looking_at("</")) {
        advance();
        advance();
        const std::string closing = name("an element name after '</'");
        if (closing != e.name) {
          fail(fmt::format("</{}> closes <{}> opened on line {}: expected </{}>", closing, e.name, e.line, e.name));
        }
        skip_space();
        expect('>', fmt::format("'>' after </{}", closing).c_str());
        return e;
      }
      e.children.push_back(element(depth + 1));
    }
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

const std::string* XmlElement::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return &v;
  }
  return nullptr;
}

XmlElement parse_xml(std::string_view text, const std::string& file) { return XmlReader(text, file).document(); }

}  // namespace gpuplan
