/* span: the time from entering function FROM to entering function TO, one span each time
 * TO follows FROM (initbench.span=FROM:TO).
 *
 * The probe's declaration, which the host builds too: in C, the statistics its kernel side
 * (span.bpf.c) keeps; in C++, its key, its record's description and its maker (span.cpp). */
#pragma once

#define SPAN_LOG2_SLOTS 48

struct span_stats {
    unsigned long long count;
    unsigned long long sum_ns;
    unsigned long long sum_sq_us2; /* squares in µs² so that long spans do not overflow */
    unsigned long long min_ns;
    unsigned long long max_ns;
    unsigned long long unmatched_to; /* TO events with no FROM before them */
    unsigned long long log2[SPAN_LOG2_SLOTS];
};

#ifdef __cplusplus
#include "bpf/core/probe.h"
#include "common/probe_decl.h"

#include <string>

namespace initbench {

inline constexpr KeySpec span_keys[] = {
    checked_key(plain_key("span", Kind::string, "",
                          "time from entering function FROM to entering TO: FROM:TO"),
                [](std::string_view text) -> std::string {
                    const auto colon = text.find(':');
                    if (text.empty())
                        return "";
                    if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size() ||
                        text.find(':', colon + 1) != std::string_view::npos)
                        return "expected FROM:TO, two kernel function names";
                    return "";
                }),
};

inline constexpr MetricDecl kSpanOwnMetrics[] = {
    {"count", "spans", "none", "amean", true},
    {"avg", "ns", "lower", "amean", true},
    {"max", "ns", "lower", "amean", true},
    {"min", "ns", "lower"},
    {"stddev", "ns", "lower"},
    {"unmatched_to", "calls", "lower"},
    {"samples.avg_ns_stddev", "ns", "lower"},
};
inline constexpr auto kSpanMetrics = with_percentiles_and_cost(kSpanOwnMetrics);
inline constexpr std::string_view kSpanIdentity[] = {"probe", "from", "to"};
inline constexpr HistogramDecl kSpanHistograms[] = {{"log2", "ns", HistogramShape::log2}};
inline constexpr RecordType span_record = probe_record("span",
    {.metrics = kSpanMetrics, .identity = kSpanIdentity, .histograms = kSpanHistograms});
inline constexpr ProbeDecl span_declaration = {&span_record, span_keys};

std::unique_ptr<Probe> make_span(const std::string& from, const std::string& to, const std::string& mode);

} // namespace initbench
#endif
