// One declared description per record type (and per probe kind): the fields that say what
// a record measures (its identity), the numbers that tell its records of one phase apart
// (its dimensions), its metrics with unit, better and agg, and its histograms. The guest
// writes a record's "metrics" through RecordBuilder; the host reads any record through
// record_metrics(), so compare and the KTAP summary never guess what a field is.
#pragma once

#include "common/record_decls.h"
#include "common/record_description.h"

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

// Every record type the guest writes, each probe kind and command kind as one.
std::span<const RecordType> record_types();
// The description of a type (and kind), or null.
const RecordType* find_record_type(std::string_view type, std::string_view kind = "");
// The field that names a record's kind: "probe" in probe records, else "kind".
std::string_view kind_field(std::string_view type);
// The description of a record: by "type", and its kind_field where that chooses it.
const RecordType* record_type_of(const nlohmann::json& record);
// Whether records of a type carry measurements (metrics or histograms) that compare reads:
// not the header, the end, warnings, errors, kernel events, nor the derived summary.
bool measures(const RecordType& type);
// The declaration a concrete metric name ("threads.rcu_gp.ticks") falls under, or null.
const MetricDecl* find_metric(const RecordType& type, std::string_view name);

// The description a writer names, checked when it is compiled.
consteval const RecordType& declared_type(std::string_view type, std::string_view kind = "") {
    for (const RecordType& t : record_decls::kRecordTypes)
        if (t.type == type && t.kind == kind)
            return t;
    throw "not a record type declared (common/record_decls.h, bpf/X/X_probe.h)";
}

// An entry's name within a metric's: a '.' in it (a kernel thread "kdamond.0") would read as
// one more segment, so it is written '_'.
std::string entry_label(std::string_view name);

// A metric's name as a writer spells it: a string literal is checked against every
// declaration when it is compiled, so that a misspelt metric does not build.
struct MetricName {
    std::string_view text;
    consteval MetricName(const char* s) : text(s) {
        if (!record_decls::declared_anywhere(text))
            throw "not a metric declared (common/record_decls.h, bpf/X/X_probe.h)";
    }
};

// Writes a record's "metrics": {name: {value, unit, better, agg}}. `entries` fill the "*"
// segments in order. A value that could not be measured is left out (the record's own field
// says why: null, "error", "supported": false). A name this record type does not declare
// (a "*" that is not one of its fields) is listed in "undeclared_metrics", which no schema
// accepts, instead of being written.
class RecordBuilder {
public:
    RecordBuilder(const RecordType& type, nlohmann::json& record) : type_(type), record_(record) {}

    // `value` is a number, or null for one that could not be measured. `unit` and `better`
    // only where the declaration leaves them to each entry.
    void metric(MetricName name, const nlohmann::json& value,
                std::initializer_list<std::string_view> entries = {}, std::string_view unit = {},
                std::string_view better = {});
    // Also sets the record's own top-level field of that name, as users read it.
    void field(MetricName name, const nlohmann::json& value);

private:
    const RecordType& type_;
    nlohmann::json& record_;
};

// A metric of one record as the host reads it.
struct MeasuredValue {
    std::string name; // concrete: "threads.rcu_gp.ticks"
    double value = 0;
    std::string unit, better, agg;
    bool headline = false;
};

// The metrics of a record: its "metrics" object where it has one (phase records, and every
// described record from version 3 on), else the fields its description declares (versions 1
// and 2). Nothing for a record type without a description, or a derived one.
std::vector<MeasuredValue> record_metrics(const nlohmann::json& record);

// The record's identity values in declared order ("funclat", "kernel_clone"), and its
// dimensions as (name, value).
std::vector<std::string> record_identity(const nlohmann::json& record);
std::vector<std::pair<std::string, double>> record_dimensions(const nlohmann::json& record);

// The record's histograms that are present: (declaration, the field's JSON).
std::vector<std::pair<const HistogramDecl*, const nlohmann::json*>>
record_histograms(const nlohmann::json& record);

} // namespace initbench
