// What export's unit tests share: synthetic results documents (compare_fixture.h) written to
// files and read back as export reads them, and the KCIDB document and JUnit text they give.
#pragma once

#include "host/export/export_read.h"
#include "host/export/exporters.h"
#include "tests/unit/compare_fixture.h"
#include "tests/unit/temp_dir.h"

#include <string>
#include <vector>

namespace initbench::exporting {

// A side's documents written as NAME-1.json, NAME-2.json ... in `dir`: the SIDE argument.
inline std::string write_side(const TempDir& dir, const std::string& name, const std::vector<Spec>& specs) {
    std::string arg;
    for (size_t i = 0; i < specs.size(); i++)
        arg += (i ? "," : "") + dir.file(name + "-" + std::to_string(i + 1) + ".json", make_doc(specs[i]).dump());
    return arg;
}

// n runs of one kernel, each with its own run id, rates around `rate`.
inline std::vector<Spec> runs_at(double rate, const std::string& tag, size_t n = 5,
                                 const std::string& build_id = "") {
    std::vector<Spec> specs;
    for (size_t i = 0; i < n; i++) {
        Spec s = with_rates(V(3, rate * kJitter[i % kJitter.size()]), tag + std::to_string(i), build_id);
        specs.push_back(s);
    }
    return specs;
}

inline Result<Model> model_of(const ReadRequest& request, const ModelOptions& options = {}) {
    auto input = read_input(request);
    if (!input)
        return input.error();
    return build_model(input.value(), options);
}

inline nlohmann::json kcidb_of(const Model& m) { return kcidb_document(m, {"test_lab", ""}); }

// The tests of a KCIDB document whose path is `path`.
inline std::vector<nlohmann::json> tests_at(const nlohmann::json& doc, const std::string& path) {
    std::vector<nlohmann::json> out;
    for (const auto& t : doc["tests"])
        if (t["path"] == path)
            out.push_back(t);
    return out;
}

} // namespace initbench::exporting
