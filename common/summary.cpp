#include "common/summary.h"

#include "common/json_fields.h"
#include "common/record_types.h"
#include "common/text.h"

#include <cstdio>
#include <set>

namespace initbench {
namespace {

// Lowercase letters, digits, '.', '_' and '-': safe in KTAP names and LAVA regexes.
std::string slug(std::string s) {
    for (char& c : s) {
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok)
            c = '_';
    }
    return s;
}

// Reasons end up after '#' on one line: no newlines, bounded.
std::string one_line(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\r' || c == '#')
            c = ' ';
    if (s.size() > 160)
        s.resize(160);
    return s;
}

std::string str(const nlohmann::json& j, const char* key) { return json_str(j, key); }

std::optional<double> num(const nlohmann::json& j, const char* key) { return json_num(j, key); }

// "fork-r0", "tcp-4-r1": a phase (a sweep's value is in its name) and round.
std::string phase_id(const nlohmann::json& r) {
    std::string id = str(r, "phase");
    if (auto round = num(r, "round"))
        id += "-r" + std::to_string(static_cast<long long>(*round));
    return id;
}

// "probe-funclat-kernel_clone": the probe and what else its description says it measures.
std::string probe_base(const nlohmann::json& r) {
    std::string base = "probe";
    for (const auto& s : record_identity(r))
        base += "-" + s;
    return base == "probe" ? base + "-" + str(r, "probe") : base; // a kind this build does not know
}

void add_probe(const nlohmann::json& r, std::vector<TestCase>& out) {
    std::string base = probe_base(r) + "-" + phase_id(r);
    auto supported = r.find("supported");
    if (supported != r.end() && supported->is_boolean() && !supported->get<bool>()) {
        out.push_back({base, "skip", std::nullopt, "", "unsupported: " + str(r, "reason")});
        return;
    }
    if (auto err = str(r, "error"); !err.empty()) {
        out.push_back({base, "fail", std::nullopt, "", err});
        return;
    }
    // The metrics its description marks as headlines (common/record_decls.h, bpf/X/X_probe.h), not all.
    bool any = false;
    for (const auto& m : record_metrics(r))
        if (m.headline) {
            out.push_back({base + "-" + m.name, "pass", m.value, m.unit, ""});
            any = true;
        }
    if (!any)
        out.push_back({base, "pass", std::nullopt, "", ""});
}

} // namespace

std::string error_text(const nlohmann::json& r) {
    const std::string key = str(r, "key");
    std::string where;
    if (!key.empty()) {
        const auto value = r.find("value");
        where = " (" + key + (value != r.end() && value->is_string() ? "=" + value->get<std::string>() : "") + ")";
    }
    return str(r, "what") + where + ": " + str(r, "reason");
}

std::vector<TestCase> test_cases(const std::vector<nlohmann::json>& records) {
    std::vector<TestCase> out;
    int errors = 0, kernel_events = 0;
    for (const auto& r : records) {
        if (!r.is_object())
            continue;
        const std::string type = str(r, "type");
        if (type == "phase") {
            auto metrics = r.find("metrics");
            if (metrics != r.end() && metrics->is_object())
                for (const auto& [name, m] : metrics->items())
                    if (m.is_object())
                        out.push_back({slug(phase_id(r) + "-" + name), "pass", num(m, "value"), str(m, "unit"), ""});
            if (auto exits = r.find("early_exits"); exits != r.end() && exits->is_array() && !exits->empty())
                out.push_back({slug(phase_id(r) + "-tasks"), "fail", std::nullopt, "",
                               std::to_string(exits->size()) + " load task(s) died during the phase"});
        } else if (type == "probe") {
            size_t before = out.size();
            add_probe(r, out);
            for (size_t i = before; i < out.size(); i++)
                out[i].id = slug(out[i].id);
        } else if (type == "error") {
            out.push_back({"error-" + std::to_string(++errors), "fail", std::nullopt, "", error_text(r)});
        } else if (type == "kernel") {
            out.push_back({slug("kernel-" + str(r, "kind") + "-" + std::to_string(++kernel_events)), "fail",
                           std::nullopt, "", str(r, "line")});
        } else if (type == "end") {
            std::string status = str(r, "status");
            out.push_back({"run-complete", status == "ok" ? "pass" : "fail", std::nullopt, "",
                           status == "ok" ? "" : "status " + status});
        }
    }
    // Ids must be unique: a repeat (same phase twice in a round) gets a suffix.
    std::set<std::string> seen;
    for (auto& c : out) {
        std::string id = c.id;
        for (int n = 2; !seen.insert(id).second; n++)
            id = c.id + "-" + std::to_string(n);
        c.id = id;
    }
    return out;
}

std::string ktap(const std::vector<TestCase>& cases) {
    std::string out = "KTAP version 1\n1.." + std::to_string(cases.size()) + "\n";
    for (size_t i = 0; i < cases.size(); i++) {
        const auto& c = cases[i];
        out += (c.result == "fail" ? "not ok " : "ok ") + std::to_string(i + 1) + " " + c.id;
        if (c.result == "skip")
            out += " # SKIP " + one_line(c.reason);
        else if (c.result == "fail")
            out += " # " + one_line(c.reason);
        else if (c.measurement)
            out += " # " + format_number(*c.measurement, "%.10g") + (c.units.empty() ? "" : " " + one_line(c.units));
        out += "\n";
    }
    return out;
}

std::string lava_lines(const std::vector<TestCase>& cases) {
    std::string out = std::string(kLavaStart) + "\n";
    for (const auto& c : cases) {
        out += "initbench-case: " + c.id + " result=" + c.result;
        if (c.measurement)
            out += " measurement=" + format_number(*c.measurement, "%.10g");
        if (!c.units.empty())
            out += " units=" + slug(c.units);
        out += "\n";
    }
    return out + kLavaEnd + "\n";
}

} // namespace initbench
