// A small XML 1.0 writer for the JUnit report: elements, attributes and text, each escaped,
// so that no metric name, reason or log excerpt can break the document. Characters XML 1.0
// cannot hold at all (control characters, invalid UTF-8) are replaced, not dropped silently.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace initbench::exporting {

// Text as XML character data; in an attribute (quoted with ") also the quote and the
// whitespace a parser would otherwise normalise away.
std::string xml_escape(std::string_view text, bool attribute = false);

class XmlWriter {
public:
    using Attributes = std::vector<std::pair<std::string, std::string>>;
    XmlWriter();
    void open(std::string_view tag, const Attributes& attributes = {});
    void empty(std::string_view tag, const Attributes& attributes = {}); // <tag .../>
    void text(std::string_view content);
    void close();
    std::string finish(); // every open element closed

private:
    void start_tag(std::string_view tag, const Attributes& attributes);
    std::string out_;
    std::vector<std::string> open_;
    bool in_text_ = false;
};

} // namespace initbench::exporting
