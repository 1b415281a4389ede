#include "host/results/lava_log.h"

#include <yaml.h>

namespace initbench {
namespace {

// A libyaml parser over one line, freed on every path.
class LineParser {
public:
    explicit LineParser(std::string_view line) {
        yaml_parser_initialize(&parser_);
        yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(line.data()), line.size());
    }
    ~LineParser() { yaml_parser_delete(&parser_); }
    LineParser(const LineParser&) = delete;
    LineParser& operator=(const LineParser&) = delete;

    // The next event's type and, for a scalar, its text; nullopt on a YAML error.
    std::optional<yaml_event_type_t> next(std::string& scalar) {
        yaml_event_t e;
        if (!yaml_parser_parse(&parser_, &e))
            return std::nullopt;
        const yaml_event_type_t type = e.type;
        if (type == YAML_SCALAR_EVENT)
            scalar.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
        yaml_event_delete(&e);
        return type;
    }

private:
    yaml_parser_t parser_;
};

bool looks_like_lava(std::string_view s) {
    const size_t i = s.find_first_not_of(" \t");
    if (i == std::string_view::npos)
        return false;
    s.remove_prefix(i);
    return s.substr(0, 3) == "- {" || s.substr(0, 6) == "{\"dt\":";
}

} // namespace

std::optional<LavaLine> parse_lava_line(std::string_view line) {
    if (!looks_like_lava(line))
        return std::nullopt;
    LineParser parser(line);
    LavaLine out;
    bool any = false;
    std::string text, key;
    // Walk to the entry's mapping: stream, document, and a sequence for "- {".
    for (;;) {
        auto type = parser.next(text);
        if (!type || *type == YAML_STREAM_END_EVENT || *type == YAML_SCALAR_EVENT)
            return std::nullopt;
        if (*type == YAML_MAPPING_START_EVENT)
            break;
    }
    // key, value pairs; a nested value (a results dict) is skipped whole.
    for (;;) {
        auto type = parser.next(key);
        if (!type || *type != YAML_SCALAR_EVENT)
            break;
        type = parser.next(text);
        if (!type)
            break;
        if (*type == YAML_SCALAR_EVENT) {
            any = true;
            if (key == "lvl")
                out.lvl = text;
            else if (key == "msg")
                out.msg = text;
            continue;
        }
        if (*type != YAML_MAPPING_START_EVENT && *type != YAML_SEQUENCE_START_EVENT)
            break;
        any = true;
        for (int depth = 1; depth > 0;) {
            type = parser.next(text);
            if (!type)
                return any ? std::optional(out) : std::nullopt;
            if (*type == YAML_MAPPING_START_EVENT || *type == YAML_SEQUENCE_START_EVENT)
                depth++;
            else if (*type == YAML_MAPPING_END_EVENT || *type == YAML_SEQUENCE_END_EVENT)
                depth--;
        }
    }
    if (!any)
        return std::nullopt;
    return out;
}

} // namespace initbench
