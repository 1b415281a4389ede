// What a record's description is made of: its identity, dimensions, metrics (unit, better,
// agg) and histograms. The descriptions themselves are constant tables: a probe's in its
// own bpf/X/X_probe.h, the others in common/record_decls.h; common/record_types.h reads them.
#pragma once

#include <span>
#include <string_view>

namespace initbench {

// A metric. Its name is the dotted path of its value in the record as versions 1 and 2 wrote
// it, and its key in "metrics" from version 3 on, so that old and new records pair. A "*"
// segment stands for an entry's name: a kernel thread's comm, a perf event, a CPU (a '.' in
// it written '_').
struct MetricDecl {
    std::string_view name;
    // "": each entry's own, given by the writer (a perf event's; in versions 1 and 2 the
    // "unit" beside the value, and "count" where that is empty).
    std::string_view unit;
    // "higher" | "lower"; "none" for a count, which says how much happened, not how well;
    // "": each entry's own, given by the writer
    std::string_view better;
    std::string_view agg = "amean";
    bool headline = false; // a KTAP/LAVA test case of its own (common/summary.cpp)
    // Non-empty: what the last "*" may be (schedstat's fields of the layout it knows).
    std::span<const std::string_view> fields = {};
};

// A list of objects in a record, and the field that names each entry for a "*".
struct EntryName {
    std::string_view list, key;
};

enum class HistogramShape {
    log2,  // [[lower bound, count], ...], non-empty slots only
    linear // {"min", "step", "buckets": [...], "under", "over", "unit"}
};
struct HistogramDecl {
    std::string_view field;
    std::string_view unit; // "": the histogram's own "unit"
    HistogramShape shape;
};

struct RecordType {
    std::string_view type; // "probe", "phase", "command" ...
    std::string_view kind; // the probe ("funclat"), the command's kind ("exec"); "" for none
    std::span<const std::string_view> identity;   // string fields: what it measures
    std::span<const std::string_view> dimensions; // number fields: which of a phase's records
    std::span<const MetricDecl> metrics;
    std::span<const HistogramDecl> histograms = {};
    std::span<const EntryName> entries = {};
    // Phase records: the load names its metrics, each with its unit, better and agg.
    bool load_metrics = false;
    // Derived from other records, for people and labs (the summary): never compared.
    bool derived = false;
};

} // namespace initbench
