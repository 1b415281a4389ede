#include "host/results/console_frames.h"

#include "common/kernel_events.h"
#include "common/record.h"
#include "common/text.h"

#include <algorithm>

namespace initbench {
namespace {

// in[i] is ESC; returns the index just past the escape sequence.
size_t skip_escape(std::string_view in, size_t i) {
    if (i + 1 >= in.size())
        return in.size();
    const char kind = in[i + 1];
    size_t j = i + 2;
    if (kind == '[') { // CSI: parameter and intermediate bytes, then one final byte
        while (j < in.size() && in[j] >= 0x20 && in[j] <= 0x3F)
            ++j;
        return (j < in.size() && in[j] >= 0x40 && in[j] <= 0x7E) ? j + 1 : j;
    }
    if (kind == ']') { // OSC: up to BEL or ESC backslash
        for (; j < in.size(); ++j) {
            if (in[j] == '\a')
                return j + 1;
            if (in[j] == '\x1b' && j + 1 < in.size() && in[j + 1] == '\\')
                return j + 2;
        }
        return i + 2; // unterminated: drop only the introducer rather than a record after it
    }
    if (kind == '(' || kind == ')')
        return std::min(in.size(), i + 3); // charset designation
    return i + 2;
}

// Calls step(i, depth) at each bracket of JSON text outside strings, with the depth after
// it, until step returns false.
template <typename F> void walk_brackets(std::string_view text, F step) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if ((c == '{' || c == '[' || c == '}' || c == ']') &&
                   !step(i, depth += (c == '{' || c == '[') ? 1 : -1)) {
            return;
        }
    }
}

// A panic's message is what follows "not syncing: ", even when the line is a kill-init.
std::string_view event_message(std::string_view s, size_t at) {
    constexpr std::string_view kPanic = "Kernel panic - not syncing";
    if (const size_t p = s.find(kPanic); p != std::string_view::npos) {
        at = p + kPanic.size();
        if (s.substr(at, 2) == ": ")
            at += 2;
    }
    return s.substr(at);
}

} // namespace

// ---- line cleaning -----------------------------------------------------------------

std::string clean_line(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    for (size_t i = 0; i < in.size();) {
        const char c = in[i];
        if (c == '\x1b') {
            i = skip_escape(in, i);
            continue;
        }
        if (c != '\r' && c != '\0')
            out += c;
        ++i;
    }
    return out;
}

std::string excerpt(std::string_view s) {
    std::string out(s.substr(0, LogParser::kMaxExcerpt));
    for (char &c : out)
        if (c < 0x20 || c > 0x7E)
            c = (c == '\t') ? ' ' : '?';
    return out;
}

// ---- LAVA log lines ------------------------------------------------------------------

std::string undo_lava_quote_escaping(std::string_view msg) {
    std::string out;
    out.reserve(msg.size());
    for (size_t i = 0; i < msg.size(); ++i) {
        if (msg[i] == '\\' && i + 1 < msg.size() && msg[i + 1] == '"')
            continue;
        out.push_back(msg[i]);
    }
    return out;
}

// ---- frames ------------------------------------------------------------------------

std::optional<Frame> split_frame(std::string_view text) {
    Frame f;
    std::string_view rest = text.substr(kFrameMarker.size());
    const size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || digits > 18 || digits == std::string_view::npos)
        return std::nullopt;
    if (rest[0] == '0' && digits > 1)
        return std::nullopt;
    for (char c : rest.substr(0, digits))
        f.seq = f.seq * 10 + uint64_t(c - '0');
    rest.remove_prefix(digits);
    if (rest.size() < 10 || rest[0] != ' ' || rest[9] != ' ')
        return std::nullopt;
    f.crc = rest.substr(1, 8);
    if (f.crc.find_first_not_of("0123456789abcdef") != std::string_view::npos)
        return std::nullopt;
    f.json = rest.substr(10);
    while (!f.json.empty() && (f.json.back() == ' ' || f.json.back() == '\t'))
        f.json.remove_suffix(1);
    return f;
}

bool too_deep(std::string_view text, int limit) {
    bool deep = false;
    walk_brackets(text, [&](size_t, int depth) { return !(deep = depth > limit); });
    return deep;
}

size_t object_end(std::string_view text) {
    size_t end = std::string_view::npos;
    if (text.empty() || text[0] != '{')
        return end;
    walk_brackets(text, [&](size_t i, int depth) {
        if (depth == 0)
            end = i + 1;
        return depth > 0;
    });
    return end;
}

// ---- kernel events -----------------------------------------------------------------

std::optional<KernelEvent> classify(std::string_view s) {
    const auto match = classify_kernel_line(s);
    if (!match)
        return std::nullopt;
    return KernelEvent{std::string(match->kind), excerpt(event_message(s, match->at)), excerpt(s), 0};
}

} // namespace initbench
