// A probe's map entry (key 0) from user space: one T per possible CPU of a per-CPU map (or
// the one T of a shared map), read settled. The probes zero it when a phase begins and sum it
// when the window ends.
#pragma once

#include "bpf/core/probe.h"
#include "bpf/core/settled_read.h"
#include "common/result.h"

#include <algorithm>
#include <bpf/libbpf.h>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace initbench {

inline size_t possible_cpus() { return static_cast<size_t>(std::max(1, libbpf_num_possible_cpus())); }

template <typename T>
Status zero_per_cpu(const bpf_map* map) {
    std::vector<T> zero(possible_cpus());
    uint32_t key = 0;
    if (int err = bpf_map__update_elem(map, &key, sizeof key, zero.data(), zero.size() * sizeof(T), BPF_ANY))
        return Error{"zeroing the per-CPU counts", -err};
    return ok();
}

// zero_per_cpu as a phase_begin keeps it: "" when zeroed, else why not (the window's
// counts are then reported as an error, not as numbers).
template <typename T>
std::string zero_per_cpu_why(const bpf_map* map) {
    auto zeroed = zero_per_cpu<T>(map);
    return zeroed ? std::string() : zeroed.error().message();
}

// A map's entry 0 as `values` T (one per CPU for a per-CPU map, else one), each as two reads
// in a row saw it (settled_read): no update caught half done.
template <typename T>
Result<std::vector<T>> read_settled(const bpf_map* map, size_t values, const char* what) {
    return settled_read<T>([=]() -> Result<std::vector<T>> {
        std::vector<T> read(values);
        uint32_t key = 0;
        if (int err = bpf_map__lookup_elem(map, &key, sizeof key, read.data(), read.size() * sizeof(T), 0))
            return Error{what, -err};
        return read;
    });
}

template <typename T>
Result<std::vector<T>> read_per_cpu(const bpf_map* map) {
    return read_settled<T>(map, possible_cpus(), "reading the per-CPU counts");
}

// A probe's per-CPU counts over a phase's window: zeroed when it opens (phase_begin), read
// when it closes (window_end), so that stopping the load adds nothing. error() says why the
// window has no counts (they could not be zeroed or read), "" when per_cpu() holds them.
template <typename T>
class PerCpuWindow {
public:
    void open(const bpf_map* map) {
        map_ = map;
        zero_error_ = zero_per_cpu_why<T>(map);
    }
    void close() {
        per_cpu_.clear();
        error_ = map_ ? zero_error_ : "the window was never opened";
        if (!error_.empty())
            return;
        if (auto read = read_per_cpu<T>(map_))
            per_cpu_ = std::move(read.value());
        else
            error_ = read.error().message();
    }
    const std::string& error() const { return error_; }
    const std::vector<T>& per_cpu() const { return per_cpu_; }

private:
    const bpf_map* map_ = nullptr;
    std::string zero_error_, error_;
    std::vector<T> per_cpu_;
};

// A probe whose numbers are one per-CPU map over each phase's window (funclat, softirq): it
// opens the window at phase_begin, closes it at window_end, and at phase_end writes its
// record from the CPUs' values, or the error that kept them from it.
template <typename T>
class PerCpuProbe : public Probe {
public:
    bool supported() const override { return counts_map() != nullptr; }

    void phase_begin() override {
        if (supported())
            window_.open(counts_map());
    }

    void window_end() override {
        if (supported())
            window_.close();
    }

    nlohmann::json phase_end() override {
        nlohmann::json r = describe();
        if (!supported())
            return r;
        if (!window_.error().empty()) {
            r["error"] = window_.error(); // counts that could not be zeroed or read: none
            return r;
        }
        return record(window_.per_cpu(), std::move(r));
    }

protected:
    // The map of counts (key 0, one T per CPU), or null when the probe did not attach.
    virtual const bpf_map* counts_map() const = 0;
    // The record: `r` (describe()'s fields) with the window's numbers from every CPU's T.
    virtual nlohmann::json record(const std::vector<T>& per_cpu, nlohmann::json r) const = 0;

private:
    PerCpuWindow<T> window_;
};

} // namespace initbench
