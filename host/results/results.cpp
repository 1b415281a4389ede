#include "host/results/results.h"

#include "common/record_types.h"
#include "common/summary.h"
#include "host/results/environment.h"

#include <csignal>
#include <cstring>
#include <sstream>

namespace initbench {
namespace {

// Field access that never throws: records come off a wire and may hold odd types.
std::string text(const nlohmann::json& j, const char* key, std::string fallback = "") {
    auto it = j.find(key);
    if (it == j.end())
        return fallback;
    if (it->is_string())
        return it->get<std::string>();
    return it->is_null() ? fallback : it->dump();
}

double number(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// A probe's headline metrics as its record's description declares them (funclat's count,
// avg and max; wakeups' threads, processes, mms and wake-ups), times in µs. A probe whose
// numbers are missing (an "error" instead) shows that, never zeros.
void probe_headline(std::ostream& out, const nlohmann::json& probe) {
    if (auto e = probe.find("error"); e != probe.end() && e->is_string()) {
        out << " error: " << e->get<std::string>();
        return;
    }
    for (const MeasuredValue& m : record_metrics(probe)) {
        if (!m.headline)
            continue;
        if (m.unit == "ns")
            out << " " << m.name << " " << m.value / 1000 << " us";
        else
            out << " " << m.name << " " << m.value;
    }
}

std::string end_status(const nlohmann::json* end) {
    return end ? text(*end, "status", "ok") : "ok";
}

const nlohmann::json* find_type(const ParsedLog& log, std::string_view type) {
    for (const auto& r : log.records)
        if (text(r.json, "type") == type)
            return &r.json;
    return nullptr;
}

size_t count_type(const ParsedLog& log, std::string_view type) {
    size_t n = 0;
    for (const auto& r : log.records)
        n += text(r.json, "type") == type;
    return n;
}

const KernelEvent* find_panic(const ParsedLog& log) {
    for (const auto& e : log.kernel_events)
        if (e.kind == "panic" || e.kind == "kill_init")
            return &e;
    return nullptr;
}

std::string last_line(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    auto nl = text.rfind('\n');
    return nl == std::string::npos ? text : text.substr(nl + 1);
}

std::string signal_name(int s) {
    const char* abbrev = sigabbrev_np(s);
    return abbrev ? std::string(" (SIG") + abbrev + ")" : "";
}

// QEMU that died before the end record arrived: killed from outside (SIGKILL, or a
// SIGTERM/SIGINT/SIGHUP that QEMU takes by exiting with "terminating on signal N"), or
// crashed. Empty when QEMU exited by itself or the output was complete anyway.
struct QemuDeath {
    bool from_outside = false;
    std::string how;
};

std::optional<QemuDeath> qemu_death(const ChildOutcome& child) {
    if (child.end != ChildOutcome::End::exited)
        return std::nullopt;
    if (child.term_signal) {
        const int s = child.term_signal;
        // QEMU never sends these to itself; a crash is SIGSEGV, SIGABRT, SIGBUS ...
        const bool outside =
            s == SIGKILL || s == SIGTERM || s == SIGINT || s == SIGHUP || s == SIGQUIT;
        return QemuDeath{outside, "QEMU was killed by signal " + std::to_string(s) +
                                      signal_name(s) + (outside ? " from outside" : "")};
    }
    const auto at = child.stderr_text.find("terminating on signal");
    if (at == std::string::npos)
        return std::nullopt;
    auto line_end = child.stderr_text.find('\n', at);
    return QemuDeath{true, "QEMU stopped on a signal from outside (" +
                               child.stderr_text.substr(at, line_end - at) + ")"};
}

} // namespace

Verdict judge(const ParsedLog& log, const std::optional<ChildOutcome>& child) {
    using End = ChildOutcome::End;
    if (child) {
        if (child->end == End::interrupted)
            return {kExitInterrupted, "interrupted",
                    "stopped by signal " + std::to_string(child->term_signal) + "; partial output kept"};
        if (child->end == End::spawn_failed)
            return {kExitBootFailure, "boot-failure", "QEMU did not start: " + child->error};
    }
    if (const auto* panic = find_panic(log))
        return {kExitBootFailure, "boot-failure", "kernel panic: " + panic->text};
    const auto death = child ? qemu_death(*child) : std::nullopt;
    if (death && log.status != LogStatus::complete) {
        if (death->from_outside)
            return {kExitInterrupted, "interrupted",
                    death->how + "; the run did not finish, partial output kept"};
        std::string why = death->how + " before the run ended: QEMU crashed";
        if (auto stderr_tail = last_line(child->stderr_text); !stderr_tail.empty())
            why += " (" + stderr_tail + ")";
        if (log.status == LogStatus::no_records)
            return {kExitBootFailure, "boot-failure", why};
        return {kExitBadOutput, std::string(to_string(log.status)), why + "; partial output kept"};
    }
    // The host's --timeout says only that the run did not end in time. Before the first
    // record that may be a slow machine or a hung boot; the log check tells which records
    // arrived, and a kernel that panicked was judged above.
    if (child && child->end == End::timeout) {
        std::string why = "QEMU stopped after the host's --timeout";
        why += log.status == LogStatus::no_records ? "; no initbench record had arrived (the boot never reached the init)"
                                                   : "; partial output kept";
        return {kExitTimeout, "timeout", why};
    }
    if (log.status == LogStatus::no_records) {
        std::string why = "no initbench records on the console";
        if (child && child->exit_code > 0)
            why += "; QEMU exited with " + std::to_string(child->exit_code) + ": " + child->stderr_text;
        return {kExitBootFailure, "boot-failure", why};
    }
    const nlohmann::json* end = find_type(log, "end");
    if (end_status(end) == "timeout")
        return {kExitTimeout, "timeout", "the guest's watchdog (initbench.timeout) ended the run"};
    if (log.status == LogStatus::corrupt) {
        // Records that arrived whole but in a layout this build cannot read: a newer guest.
        size_t unknown = 0;
        const DamagedLine* first = nullptr;
        for (const auto& d : log.damaged)
            if (d.reason.starts_with("unknown record version")) {
                first = first ? first : &d;
                unknown++;
            }
        if (first)
            return {kExitBadOutput, "corrupt",
                    std::to_string(unknown) + " record(s) of an unknown version, first on line " +
                        std::to_string(first->line) + ": " + first->reason + "; use a newer initbench"};
        return {kExitBadOutput, "corrupt",
                std::to_string(log.damaged.size()) + " damaged record(s), " + std::to_string(log.missing_count) +
                    " missing"};
    }
    if (log.status == LogStatus::incomplete)
        return {kExitBadOutput, "incomplete", "no end record: the output was cut off"};
    if (size_t errors = count_type(log, "error"); errors || end_status(end) != "ok")
        return {kExitErrors, "errors", std::to_string(errors) + " error record(s)"};
    return {kExitOk, "ok", "complete"};
}

nlohmann::json results_document(const ParsedLog& log, const Verdict& verdict, nlohmann::json host,
                                nlohmann::json environment) {
    nlohmann::json records = nlohmann::json::array();
    for (const auto& r : log.records)
        records.push_back(r.json);
    nlohmann::json doc = {{"initbench_results", 1},
                          {"verdict", verdict.name},
                          {"exit_code", verdict.exit_code},
                          {"reason", verdict.reason},
                          {"log", log.summary_json()},
                          {"host", std::move(host)}};
    if (environment.is_object()) {
        if (auto image = image_build_facts(log); !image.is_null())
            environment["image"] = std::move(image);
        doc["environment"] = std::move(environment);
    }
    doc["records"] = std::move(records);
    return doc;
}

namespace {

// perf stat's shape: the command, its mean time and ± (relative standard error), then
// each counter's mean and ±, or why it is not supported.
void command_summary(std::ostream& out, const nlohmann::json& j) {
    const std::string what = text(j, "kind") == "module" ? text(j, "module") : text(j, "command");
    out << "command " << what << "  x" << text(j, "repeat", "1");
    auto elapsed = j.find("elapsed_s");
    if (elapsed != j.end() && elapsed->is_object())
        out << "  " << number(*elapsed, "mean") << " s ( +- " << number(*elapsed, "rel_stderr_pct") << "% )";
    out << "\n";
    auto counters = j.find("counters");
    if (counters == j.end() || !counters->is_array())
        return;
    for (const auto& c : *counters) {
        if (!c.is_object())
            continue;
        out << "  " << text(c, "event") << " ";
        auto supported = c.find("supported");
        if (supported == c.end() || !supported->is_boolean() || !supported->get<bool>()) {
            out << text(c, "reason", "not supported") << "\n";
            continue;
        }
        out << number(c, "mean") << " " << text(c, "unit") << " ( +- " << number(c, "rel_stderr_pct") << "% )";
        auto derived = c.find("derived");
        if (derived != c.end() && derived->is_object())
            out << "  " << number(*derived, "value") << " " << text(*derived, "unit");
        out << "\n";
    }
}

} // namespace

std::string human_summary(const ParsedLog& log, const Verdict& verdict) {
    std::ostringstream out;
    if (const auto* h = find_type(log, "header")) {
        auto k = h->find("kernel");
        const nlohmann::json kernel = k != h->end() && k->is_object() ? *k : nlohmann::json::object();
        auto cfg = h->find("config");
        std::string profile = "?";
        if (cfg != h->end() && cfg->is_object() && cfg->contains("values") && (*cfg)["values"].is_object())
            profile = text((*cfg)["values"], "profile", "?");
        out << "kernel  " << text(kernel, "release", "?") << "  build-id " << text(kernel, "build_id", "?") << "\n"
            << "run     " << text(*h, "run_id", "?") << "  profile " << profile << "\n";
    }
    for (const auto& r : log.records) {
        const auto& j = r.json;
        std::string type = text(j, "type");
        if (type == "phase") {
            out << "phase   " << text(j, "phase") << " round " << text(j, "round", "0");
            auto metrics = j.find("metrics");
            if (metrics != j.end() && metrics->is_object())
                for (const auto& [name, m] : metrics->items())
                    if (m.is_object())
                        out << "  " << name << " " << number(m, "value") << " " << text(m, "unit");
            out << "\n";
        } else if (type == "probe") {
            out << "probe   " << text(j, "probe") << " " << text(j, "function") << " [" << text(j, "phase") << "]";
            auto supported = j.find("supported");
            if (supported != j.end() && supported->is_boolean() && supported->get<bool>())
                probe_headline(out << " " << text(j, "mechanism"), j);
            else
                out << " unsupported: " << text(j, "reason");
            out << "\n";
        } else if (type == "command") {
            command_summary(out, j);
        } else if (type == "error") {
            out << "error   " << error_text(j) << "\n";
        } else if (type == "warning" || type == "kernel") {
            out << type << (type == "kernel" ? "  " : "   ") << text(j, "what", text(j, "kind")) << ": "
                << text(j, "reason", text(j, "line")) << "\n";
        }
    }
    out << "result  " << verdict.name << " (" << verdict.reason << ")\n";
    return out.str();
}

std::string printed_summary(const ParsedLog& log, const Verdict& verdict, const std::string& format) {
    if (format == "text")
        return human_summary(log, verdict);
    std::vector<nlohmann::json> records;
    for (const auto& r : log.records)
        records.push_back(r.json);
    auto cases = test_cases(records);
    if (log.status != LogStatus::complete) // a cut-off log must not pass as a finished run
        cases.push_back({"log-" + std::string(to_string(log.status)), "fail", std::nullopt, "", verdict.reason});
    return format == "ktap" ? ktap(cases) : lava_lines(cases);
}

} // namespace initbench
