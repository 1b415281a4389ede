// schedstat: per-phase deltas of /proc/schedstat, per CPU and per scheduling domain. The
// kernel counts most of these only while kernel.sched_schedstats is 1, so the probe turns
// it on (and says so).
//
// The probe's declaration, which the host builds too: its key, its record's description
// (with the field names of the layout it knows) and its maker (schedstat.cpp).
#pragma once

#include "bpf/core/probe.h"
#include "common/probe_decl.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace initbench {

inline constexpr KeySpec schedstat_keys[] = {
    plain_key("schedstat", Kind::flag, "0", "per-phase deltas of /proc/schedstat")};

// /proc/schedstat version 15 (the kernel's Documentation/scheduler/sched-stats.rst), in
// the order of its lines; "legacy_zero" is always 0 and never written.
inline constexpr std::string_view kSchedstatCpuFields[] = {
    "yld_count",  "legacy_zero", "sched_count", "sched_goidle", "ttwu_count",
    "ttwu_local", "rq_cpu_time", "run_delay",   "pcount"};
inline constexpr std::string_view kSchedstatCpuCounts[] = {"yld_count",  "sched_count", "sched_goidle",
                                                           "ttwu_count", "ttwu_local",  "pcount"};
inline constexpr std::string_view kSchedstatDomainFields[] = {
    "lb_count_idle",       "lb_balanced_idle",    "lb_failed_idle",       "lb_imbalance_idle",
    "lb_gained_idle",      "lb_hot_gained_idle",  "lb_nobusyq_idle",      "lb_nobusyg_idle",
    "lb_count_busy",       "lb_balanced_busy",    "lb_failed_busy",       "lb_imbalance_busy",
    "lb_gained_busy",      "lb_hot_gained_busy",  "lb_nobusyq_busy",      "lb_nobusyg_busy",
    "lb_count_newidle",    "lb_balanced_newidle", "lb_failed_newidle",    "lb_imbalance_newidle",
    "lb_gained_newidle",   "lb_hot_gained_newidle", "lb_nobusyq_newidle", "lb_nobusyg_newidle",
    "alb_count",           "alb_failed",          "alb_pushed",           "sbe_count",
    "sbe_balanced",        "sbe_pushed",          "sbf_count",            "sbf_balanced",
    "sbf_pushed",          "ttwu_wake_remote",    "ttwu_move_affine",     "ttwu_move_balance"};
// Not "version": the file's layout, not a measurement.
inline constexpr MetricDecl kSchedstatMetrics[] = {
    {"cpus.*.rq_cpu_time", "ns", "lower"},
    {"cpus.*.run_delay", "ns", "lower"},
    {"cpus.*.*", "events", "lower", "amean", false, kSchedstatCpuCounts},
    {"domains.*.deltas.*", "events", "lower", "amean", false, kSchedstatDomainFields},
};
inline constexpr RecordType schedstat_record = probe_record("schedstat", {.metrics = kSchedstatMetrics});
inline constexpr ProbeDecl schedstat_declaration = {&schedstat_record, schedstat_keys};

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

} // namespace initbench
