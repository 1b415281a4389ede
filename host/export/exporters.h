// The two formats `initbench export` writes from its model (export_model.h): KCIDB's I/O
// schema v5.3, which KernelCI's kcidb-submit takes, and JUnit XML as GitLab and Jenkins read it.
#pragma once

#include "common/result.h"
#include "host/export/export_model.h"

#include <nlohmann/json.hpp>
#include <string>

namespace initbench::exporting {

// KCIDB's origin: the name of the CI system, lower-case letters, digits and '_'.
Status check_origin(const std::string& origin);
// A URL KCIDB takes as a log's base ("https://lab.example/logs/"): a scheme and a host.
Status check_log_url(const std::string& base);
// A user's --git-... facts, against KCIDB's patterns (40 hex digits, an https:// URL).
Status check_facts(const KernelFacts& facts);

struct KcidbOptions {
    std::string origin;
    std::string log_url; // "": no log_url; else each test's log is BASE/NAME
};
nlohmann::json kcidb_document(const Model& model, const KcidbOptions& options);

std::string junit_document(const Model& model);

} // namespace initbench::exporting
