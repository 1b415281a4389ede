#include "host/boot/boot_once.h"

#include "common/summary.h"

namespace initbench {

BootOutcome boot_once(const RunOptions& run) {
    RunResult r = boot_and_collect(run);
    BootOutcome out;
    out.verdict = judge(r.log, r.child);
    out.document = results_document(r.log, out.verdict, std::move(r.host), std::move(r.environment));
    out.log = std::move(r.log);
    return out;
}

std::string failure_lines(const BootOutcome& outcome) {
    if (outcome.verdict.exit_code == kExitOk)
        return "";
    std::string text = "initbench: " + outcome.verdict.name + ": " + outcome.verdict.reason + "\n";
    for (const auto& r : outcome.log.records)
        if (r.json.is_object() && r.json.value("type", "") == "error")
            text += "initbench: error: " + error_text(r.json) + "\n";
    return text;
}

} // namespace initbench
