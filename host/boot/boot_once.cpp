#include "host/boot/boot_once.h"

#include "common/summary.h"

namespace initbench {

namespace {

// A firmware boot that sent no record says where it stopped; one that stopped before the
// kernel (a firmware that hangs, a TFTP fetch that fails) is a boot failure, never a bare
// timeout.
void say_where_it_stopped(const RunResult& r, Verdict& v) {
    if (r.stopped_at.empty() || !r.log.records.empty() || v.exit_code == kExitOk || v.exit_code == kExitInterrupted)
        return;
    if (r.before_kernel && v.exit_code == kExitTimeout) {
        v.exit_code = kExitBootFailure;
        v.name = "boot-failure";
    }
    v.reason = r.stopped_at + " (" + v.reason + ")";
}

} // namespace

BootOutcome boot_once(const RunOptions& run) {
    RunResult r = boot_and_collect(run);
    BootOutcome out;
    out.verdict = judge(r.log, r.child);
    say_where_it_stopped(r, out.verdict);
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
