// schedstat: per-phase deltas of /proc/schedstat, per CPU and per scheduling domain. The
// kernel counts most of these only while kernel.sched_schedstats is 1, so the probe turns
// it on (and says so).
#pragma once

#include "bpf/probe.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

struct Schedstat {
    int version = 0;
    std::map<std::string, std::vector<uint64_t>> cpus;    // "cpu0" → fields
    std::map<std::string, std::vector<uint64_t>> domains; // "cpu0/domain0" → fields
    std::map<std::string, std::string> masks;             // "cpu0/domain0" → cpumask
};

Schedstat parse_schedstat(std::string_view text);
// Field names of a cpu line and a domain line for the versions whose layout is known.
const std::vector<std::string>& schedstat_cpu_fields(int version);
const std::vector<std::string>& schedstat_domain_fields(int version);

// The record's "version", "cpus" and "domains" (the deltas from `begin` to `end`, by name
// where the layout is known) and their metrics.
void add_schedstat_deltas(nlohmann::json& r, const Schedstat& begin, const Schedstat& end);

std::unique_ptr<Probe> make_schedstat();

} // namespace initbench
