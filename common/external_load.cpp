#include "common/external_load.h"

#include "common/config.h"
#include "common/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex.h>

namespace initbench {
namespace {

constexpr std::string_view kPlaceholders[] = {"duration", "workers", "clients", "cpus"};
constexpr unsigned kMaxCount = 1024;

bool is_lower_word_char(char c) {
    return (c >= 'a' && c <= 'z') || c == '_';
}

// Calls fn(name, begin, end) for every {name} of lowercase letters not written as ${name}
// (a shell's), where [begin, end) spans the braces.
template <typename Fn> void for_each_placeholder(std::string_view text, Fn fn) {
    for (size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', open + 1)) {
        if (open > 0 && text[open - 1] == '$')
            continue;
        size_t end = open + 1;
        while (end < text.size() && is_lower_word_char(text[end]))
            end++;
        if (end > open + 1 && end < text.size() && text[end] == '}')
            fn(text.substr(open + 1, end - open - 1), open, end + 1);
    }
}

// One item for `cpus` CPUs; nothing when it is not a count form.
std::optional<uint64_t> count_of(std::string_view item, unsigned cpus) {
    if (item == "cpus")
        return cpus;
    if (auto star = item.find('*'); star != std::string_view::npos) {
        auto k = parse_integer<unsigned>(item.substr(0, star));
        return k && item.substr(star + 1) == "cpus" ? std::optional<uint64_t>(uint64_t(*k) * cpus) : std::nullopt;
    }
    if (auto slash = item.find('/'); slash != std::string_view::npos) {
        auto k = parse_integer<unsigned>(item.substr(slash + 1));
        if (!k || !*k || item.substr(0, slash) != "cpus")
            return std::nullopt;
        return std::max<uint64_t>(1, cpus / *k);
    }
    return parse_integer<unsigned>(item);
}

} // namespace

std::string check_external_load_name(std::string_view name) {
    const bool word = !name.empty() && name.size() <= 32 && name[0] >= 'a' && name[0] <= 'z' &&
                      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos;
    if (!word)
        return "a load's name is 1 to 32 characters of a-z, 0-9 and '_', starting with a letter";
    const auto& builtin = builtin_load_names();
    if (name == "none" || std::find(builtin.begin(), builtin.end(), name) != builtin.end())
        return "'" + std::string(name) + "' is a built-in load's name";
    if (name == "cpus" || name == "nice") // load.cpus and load.nice are keys of their own
        return "load." + std::string(name) + " is a key of its own";
    return "";
}

std::string substitute(std::string_view command, const ExternalValues& v) {
    std::string out;
    size_t at = 0;
    for_each_placeholder(command, [&](std::string_view name, size_t begin, size_t end) {
        std::string value;
        if (name == "duration")
            value = v.duration;
        else if (name == "workers")
            value = std::to_string(v.workers);
        else if (name == "clients")
            value = std::to_string(v.clients);
        else if (name == "cpus")
            value = std::to_string(v.cpus);
        else
            return; // refused by the key's check; left as written
        out.append(command.substr(at, begin - at));
        out += value;
        at = end;
    });
    out.append(command.substr(at));
    return out;
}

std::string check_placeholders(std::string_view command) {
    std::string why;
    for_each_placeholder(command, [&](std::string_view name, size_t, size_t) {
        if (why.empty() && std::find(std::begin(kPlaceholders), std::end(kPlaceholders), name) ==
                               std::end(kPlaceholders))
            why = "unknown placeholder {" + std::string(name) + "}: the placeholders are {duration}, "
                  "{workers}, {clients} and {cpus}";
    });
    return why;
}

bool uses_placeholder(std::string_view command, std::string_view wanted) {
    bool found = false;
    for_each_placeholder(command, [&](std::string_view name, size_t, size_t) { found = found || name == wanted; });
    return found;
}

std::optional<std::vector<unsigned>> expand_counts(const std::vector<std::string>& items, unsigned cpus,
                                                   std::string& why) {
    std::vector<unsigned> out;
    auto add = [&](uint64_t v) {
        if (std::find(out.begin(), out.end(), v) == out.end())
            out.push_back(unsigned(v));
    };
    for (size_t i = 0; i < items.size(); i++) {
        const std::string& item = items[i];
        if (item == "...") {
            if (i == 0 || i + 1 == items.size() || items[i - 1] == "..." || items[i + 1] == "...") {
                why = "'...' must stand between two counts";
                return std::nullopt;
            }
            continue; // filled in when the item after it is read
        }
        auto v = count_of(item, cpus);
        if (!v) {
            why = "'" + item + "' is not a count, cpus, K*cpus or cpus/K";
            return std::nullopt;
        }
        if (*v < 1 || *v > kMaxCount) {
            why = "'" + item + "' is " + std::to_string(*v) + " here: a count must be from 1 to " +
                  std::to_string(kMaxCount);
            return std::nullopt;
        }
        if (i >= 2 && items[i - 1] == "...")
            for (uint64_t d = uint64_t(out.empty() ? 1 : out.back()) * 2; d < *v; d *= 2)
                add(d);
        add(*v);
    }
    return out;
}

std::string check_count_item(std::string_view item) {
    if (item == "...")
        return "";
    // Any number of CPUs must give a count: check the smallest and the largest machine.
    for (unsigned cpus : {1u, 512u}) {
        std::string why;
        if (!expand_counts({std::string(item)}, cpus, why))
            return why + (cpus == 1 ? "" : " with " + std::to_string(cpus) + " CPUs");
    }
    return "";
}

namespace {

// What a Perl-style class escape is in POSIX ERE, which has none of them.
std::string_view posix_for(char c) {
    switch (c) {
    case 'd': return "[0-9]";
    case 'D': return "[^0-9]";
    case 's': return "[[:space:]]";
    case 'S': return "[^[:space:]]";
    case 'w': return "[[:alnum:]_]";
    case 'W': return "[^[:alnum:]_]";
    default: return {};
    }
}

// POSIX ERE gives a backslash a meaning only before a special character; other escapes are
// undefined, and C libraries differ: "\d" matched nothing in the guest (musl), where the
// host's glibc takes it for a digit. Perl's class escapes inside brackets ("[\d.]") are a
// backslash and a letter there.
std::string unknown_escape(std::string_view regex) {
    constexpr std::string_view kSpecial = ".[]\\()*+?{}|^$";
    bool in_bracket = false;
    for (size_t i = 0; i < regex.size(); i++) {
        const char c = regex[i];
        if (in_bracket) {
            if (c == '[' && i + 1 < regex.size() && std::string_view(":=.").find(regex[i + 1]) != std::string_view::npos) {
                const std::string close = std::string(1, regex[i + 1]) + "]";
                const size_t end = regex.find(close, i + 2);
                i = end == std::string_view::npos ? regex.size() : end + 1; // [:space:]
            } else if (c == ']') {
                in_bracket = false;
            } else if (c == '\\' && i + 1 < regex.size() && !posix_for(regex[i + 1]).empty()) {
                const char e = regex[i + 1];
                return std::string("'\\") + e + "' in brackets is a backslash and '" + e +
                       "' in POSIX ERE; for the class write " + std::string(posix_for(e)) +
                       " outside brackets, or its [:class:] inside";
            }
            continue;
        }
        if (c == '[') {
            in_bracket = true;
            if (i + 1 < regex.size() && regex[i + 1] == '^')
                i++;
            if (i + 1 < regex.size() && regex[i + 1] == ']')
                i++; // a ']' first in brackets is a member
        } else if (c == '\\' && i + 1 < regex.size()) {
            const char e = regex[++i];
            if (kSpecial.find(e) != std::string_view::npos)
                continue;
            const std::string_view posix = posix_for(e);
            return std::string("'\\") + e + "' is not POSIX ERE: " +
                   (posix.empty() ? std::string("a backslash escapes only . [ ] \\ ( ) * + ? { } | ^ $")
                                  : "write " + std::string(posix));
        }
    }
    return "";
}

} // namespace

std::string check_metric_regex(std::string_view regex) {
    if (std::string why = unknown_escape(regex); !why.empty())
        return why;
    regex_t re;
    const std::string text(regex);
    if (int err = ::regcomp(&re, text.c_str(), REG_EXTENDED | REG_NEWLINE); err != 0) {
        char message[160];
        ::regerror(err, &re, message, sizeof message);
        return std::string("not a POSIX extended regular expression: ") + message;
    }
    const size_t groups = re.re_nsub;
    ::regfree(&re);
    return groups == 1 ? "" : "must have exactly one capture group (it has " + std::to_string(groups) + ")";
}

std::optional<double> find_metric(std::string_view output, const std::string& regex, std::string& why) {
    if (why = check_metric_regex(regex); !why.empty())
        return std::nullopt;
    regex_t re;
    ::regcomp(&re, regex.c_str(), REG_EXTENDED | REG_NEWLINE);
    std::string text(output);
    std::replace(text.begin(), text.end(), '\0', ' '); // regexec reads a C string
    std::optional<std::string> last;
    regmatch_t m[2];
    for (size_t at = 0; at <= text.size();) {
        if (::regexec(&re, text.c_str() + at, 2, m, at ? REG_NOTBOL : 0) != 0)
            break;
        if (m[1].rm_so >= 0)
            last = text.substr(at + size_t(m[1].rm_so), size_t(m[1].rm_eo - m[1].rm_so));
        at += size_t(std::max<regoff_t>(m[0].rm_eo, m[0].rm_so + 1)); // an empty match moves on
    }
    ::regfree(&re);
    if (!last) {
        why = "no match for the metric's regular expression '" + regex + "' in the output";
        return std::nullopt;
    }
    const std::string captured(trim(*last));
    char* end = nullptr;
    const double v = captured.empty() ? NAN : std::strtod(captured.c_str(), &end);
    if (captured.empty() || end != captured.c_str() + captured.size() || !std::isfinite(v) || v < 0) {
        why = "the metric's capture '" + captured.substr(0, 80) + "' is not a non-negative number";
        return std::nullopt;
    }
    return v;
}

std::vector<std::pair<std::string, std::string>> external_load_conflicts(const Config& config) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& name : config.family_names("load")) {
        const std::string base = "load." + name;
        auto key = [&](const char* field) { return base + "." + field; };
        auto given = [&](const std::string& k) { return config.source(k) != "default"; };
        if (!given(base)) {
            for (const KeySpec& spec : config_keys())
                if (std::string_view(spec.name).starts_with("load.*.")) {
                    const std::string k = base + std::string(spec.name.substr(6));
                    if (given(k))
                        out.emplace_back(k, "set without " + base + " (the load's program)");
                }
            continue;
        }
        for (const char* field : {"ready", "ready_port", "ready_timeout"})
            if (given(key(field)) && !given(key("setup")))
                out.emplace_back(key(field), "needs " + key("setup") + ": the program it waits for");
        for (const char* field : {"unit", "better", "agg"})
            if (given(key(field)) && !given(key("metric")))
                out.emplace_back(key(field), "needs " + key("metric"));
        if (given(key("metric")) && config.str(key("unit")).empty())
            out.emplace_back(key("metric"), "needs " + key("unit") + ": the metric's unit");
        const bool uses = uses_placeholder(config.str(base), "clients") ||
                          uses_placeholder(config.str(key("setup")), "clients");
        if (uses && !given(key("clients")))
            out.emplace_back(base, "uses {clients} but " + key("clients") + " is not set");
        if (!uses && given(key("clients")))
            out.emplace_back(key("clients"), "the program has no {clients}: every phase would be the same");
        std::string why;
        if (given(key("clients")))
            for (unsigned cpus : {1u, 512u})
                if (why.empty() && !expand_counts(config.list(key("clients")), cpus, why))
                    out.emplace_back(key("clients"), why);
    }
    return out;
}

bool tcp_listening(std::string_view proc_net_tcp, unsigned port) {
    for (std::string_view line : split_lines(proc_net_tcp)) {
        // "  0: 0100007F:1B5B 00000000:0000 0A ...": local address:port in hex, state 0A listen
        auto words = split_words(line);
        if (words.size() < 4 || words[3] != "0A")
            continue;
        const std::string_view local = words[1];
        const size_t colon = local.rfind(':');
        unsigned p = 0;
        if (colon != std::string_view::npos &&
            std::from_chars(local.data() + colon + 1, local.data() + local.size(), p, 16).ec == std::errc() &&
            p == port)
            return true;
    }
    return false;
}

std::string output_tail(std::string_view text, size_t bytes) {
    if (text.size() <= bytes)
        return std::string(text);
    std::string_view tail = text.substr(text.size() - bytes);
    if (auto nl = tail.find('\n'); nl != std::string_view::npos && nl + 1 < tail.size())
        tail.remove_prefix(nl + 1);
    return std::string(tail);
}

} // namespace initbench
