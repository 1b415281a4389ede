// One boot, whole: QEMU run with the planned options, its console checked, the verdict and
// the results document made. Every command boots through it (host/boot/boot_backend.h).
#pragma once

#include "host/boot/boot.h"
#include "host/results/results.h"

#include <nlohmann/json.hpp>
#include <string>

namespace initbench {

struct BootOutcome {
    ParsedLog log;
    Verdict verdict;
    nlohmann::json document; // the results document (results_document)
};

BootOutcome boot_once(const RunOptions& run);

// Why a boot failed, as `run --quiet` says it on stderr: the verdict's reason, then each
// error record. "" for a run that ended well.
std::string failure_lines(const BootOutcome& outcome);

} // namespace initbench
