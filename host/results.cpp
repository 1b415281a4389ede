#include "host/results.h"

#include <sstream>

namespace initbench {
namespace {

const nlohmann::json* find_type(const ParsedLog& log, std::string_view type) {
    for (const auto& r : log.records)
        if (r.json.value("type", "") == type)
            return &r.json;
    return nullptr;
}

size_t count_type(const ParsedLog& log, std::string_view type) {
    size_t n = 0;
    for (const auto& r : log.records)
        n += r.json.value("type", "") == type;
    return n;
}

const KernelEvent* find_panic(const ParsedLog& log) {
    for (const auto& e : log.kernel_events)
        if (e.kind == "panic" || e.kind == "kill_init")
            return &e;
    return nullptr;
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
    if (log.status == LogStatus::no_records) {
        std::string why = "no initbench records on the console";
        if (child && child->exit_code > 0)
            why += "; QEMU exited with " + std::to_string(child->exit_code) + ": " + child->stderr_text;
        return {kExitBootFailure, "boot-failure", why};
    }
    const nlohmann::json* end = find_type(log, "end");
    if ((child && child->end == End::timeout) || (end && end->value("status", "") == "timeout"))
        return {kExitTimeout, "timeout", "the run did not finish within its timeout"};
    if (log.status == LogStatus::corrupt)
        return {kExitBadOutput, "corrupt",
                std::to_string(log.damaged.size()) + " damaged record(s), " + std::to_string(log.missing_count) +
                    " missing"};
    if (log.status == LogStatus::incomplete)
        return {kExitBadOutput, "incomplete", "no end record: the output was cut off"};
    if (size_t errors = count_type(log, "error"); errors || (end && end->value("status", "ok") != "ok"))
        return {kExitErrors, "errors", std::to_string(errors) + " error record(s)"};
    return {kExitOk, "ok", "complete"};
}

nlohmann::json results_document(const ParsedLog& log, const Verdict& verdict, nlohmann::json host) {
    nlohmann::json records = nlohmann::json::array();
    for (const auto& r : log.records)
        records.push_back(r.json);
    return {{"initbench_results", 1},
            {"verdict", verdict.name},
            {"exit_code", verdict.exit_code},
            {"reason", verdict.reason},
            {"log", log.summary_json()},
            {"host", std::move(host)},
            {"records", std::move(records)}};
}

std::string human_summary(const ParsedLog& log, const Verdict& verdict) {
    std::ostringstream out;
    if (const auto* h = find_type(log, "header")) {
        const auto& k = (*h)["kernel"];
        out << "kernel  " << k.value("release", "?") << "  build-id " << k.value("build_id", "?") << "\n"
            << "run     " << h->value("run_id", "?") << "  profile "
            << h->value("/config/values/profile"_json_pointer, std::string("?")) << "\n";
    }
    for (const auto& r : log.records) {
        const auto& j = r.json;
        std::string type = j.value("type", "");
        if (type == "phase") {
            out << "phase   " << j.value("phase", "") << " round " << j.value("round", 0);
            if (j.contains("metrics"))
                for (const auto& [name, m] : j["metrics"].items())
                    out << "  " << name << " " << m.value("value", 0.0) << " " << m.value("unit", "");
            out << "\n";
        } else if (type == "probe") {
            out << "probe   " << j.value("probe", "") << " " << j.value("function", "") << " ["
                << j.value("phase", "") << "]";
            if (j.value("supported", false))
                out << " " << j.value("mechanism", "") << " count " << j.value("count", 0) << " avg "
                    << j.value("avg", 0.0) / 1000 << " us max " << j.value("max", 0) / 1000 << " us";
            else
                out << " unsupported: " << j.value("reason", "");
            out << "\n";
        } else if (type == "error" || type == "warning" || type == "kernel") {
            out << type << (type == "kernel" ? "  " : "   ") << j.value("what", j.value("kind", "")) << ": "
                << j.value("reason", j.value("line", "")) << "\n";
        }
    }
    out << "result  " << verdict.name << " (" << verdict.reason << ")\n";
    return out.str();
}

} // namespace initbench
