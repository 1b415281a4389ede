// Test-case summaries derived from the records, for labs that read KTAP or LAVA results
// instead of JSON. The JSON records stay the source of truth: these are computed from them,
// by the init at the end of a run and by the host from any results file.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace initbench {

struct TestCase {
    std::string id;     // [a-z0-9._-]+, unique within a run
    std::string result; // pass | fail | skip
    std::optional<double> measurement;
    std::string units;
    std::string reason; // for fail and skip
};

std::vector<TestCase> test_cases(const std::vector<nlohmann::json>& records);

// An error record as one line, with its key and the value refused when it has them:
// "config (initbench.duration=2x): not a number of seconds", "phase fork (load.x): exited
// with status 2". Every place that shows an error record (the summaries, compare's gate,
// `run --quiet`) shows it so.
std::string error_text(const nlohmann::json& error_record);

// KTAP version 1: a plan, then "ok N id", "not ok N id # reason", "ok N id # SKIP reason".
std::string ktap(const std::vector<TestCase>& cases);

// One line per case for a LAVA "monitors" test (patterns in docs/lava.md), between
// kLavaStart and kLavaEnd.
inline constexpr const char* kLavaStart = "initbench-lava-start";
inline constexpr const char* kLavaEnd = "initbench-lava-end";
std::string lava_lines(const std::vector<TestCase>& cases);

} // namespace initbench
