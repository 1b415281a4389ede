// XML escaping and the writer's indentation: nested elements a line each, text inline.
#include "host/export/xml_writer.h"

#include "common/text.h"

namespace initbench::exporting {

std::string xml_escape(std::string_view text, bool attribute) {
    const std::string safe = utf8_safe(text);
    std::string out;
    out.reserve(safe.size());
    for (char c : safe) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += attribute ? "&quot;" : "\""; break;
        case '\n': out += attribute ? "&#10;" : "\n"; break;
        case '\t': out += attribute ? "&#9;" : "\t"; break;
        case '\r': out += "&#13;"; break;
        default:
            // XML 1.0 has no way to write the other C0 controls, even as references.
            if (u < 0x20 || u == 0x7f)
                out += "\xEF\xBF\xBD"; // U+FFFD
            else
                out += c;
        }
    }
    return out;
}

XmlWriter::XmlWriter() : out_("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") {}

void XmlWriter::start_tag(std::string_view tag, const Attributes& attributes) {
    if (!in_text_)
        out_ += std::string(open_.size() * 2, ' ');
    out_ += "<" + std::string(tag);
    for (const auto& [name, value] : attributes)
        out_ += " " + name + "=\"" + xml_escape(value, true) + "\"";
}

void XmlWriter::open(std::string_view tag, const Attributes& attributes) {
    start_tag(tag, attributes);
    out_ += ">";
    open_.emplace_back(tag);
    in_text_ = false;
    out_ += "\n";
}

void XmlWriter::empty(std::string_view tag, const Attributes& attributes) {
    start_tag(tag, attributes);
    out_ += "/>\n";
}

void XmlWriter::text(std::string_view content) {
    // The text follows the open tag directly: a newline there would be part of it.
    if (!out_.empty() && out_.back() == '\n')
        out_.pop_back();
    out_ += xml_escape(content);
    in_text_ = true;
}

void XmlWriter::close() {
    if (open_.empty())
        return;
    if (!in_text_)
        out_ += std::string((open_.size() - 1) * 2, ' ');
    out_ += "</" + open_.back() + ">\n";
    open_.pop_back();
    in_text_ = false;
}

std::string XmlWriter::finish() {
    while (!open_.empty())
        close();
    return out_;
}

} // namespace initbench::exporting
