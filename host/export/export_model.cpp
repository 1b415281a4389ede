// The model from what was read: the kernels (each with what the user adds of it), every
// run's tests, and with a baseline compare's Report turned into verdict tests.
#include "host/export/export_model.h"

#include <algorithm>
#include <set>

namespace initbench::exporting {

namespace {

// The side a --git-... value is for: its label, or the candidate (the last side) for "".
Result<size_t> side_named(const ExportInput& input, const std::string& label) {
    if (label.empty()) // the candidate: the last side that is not the baseline
        return input.baseline == input.sides.size() - 1 && input.sides.size() > 1 ? input.sides.size() - 2
                                                                                   : input.sides.size() - 1;
    for (size_t i = 0; i < input.sides.size(); i++)
        if (input.sides[i].label == label)
            return i;
    std::string labels;
    for (const auto& s : input.sides)
        labels += (labels.empty() ? "" : ", ") + s.label;
    return Error{"no side is labelled '" + label + "' (the sides: " + labels + ")"};
}

size_t kernel_index(Model& model, const Kernel& k) {
    for (size_t i = 0; i < model.kernels.size(); i++)
        if (model.kernels[i].key == k.key)
            return i;
    model.kernels.push_back(k);
    return model.kernels.size() - 1;
}

// A run's kernel; for a boot that failed before naming it, its side's (the kernel of the
// side's first run that names one), else one of the side's own.
Kernel side_kernel(const ExportSide& side, const Run& run) {
    Kernel k = kernel_of(run, side.label);
    for (size_t r = 0; k.key.empty() && r < side.runs.size(); r++)
        k = kernel_of(side.runs[r], side.label);
    if (k.key.empty())
        k.key = "unknown-" + digest(side.label);
    return k;
}

bool complete(const Run& r) { return r.file.failure.empty() && r.file.errors.empty(); }

// The baseline first, then the others: the runs that can be compared, and for each side the
// kernel and the latest start of its boots.
struct Compared {
    std::vector<Side> sides;
    std::vector<SideFacts> facts;
};

Compared compared_sides(const ExportInput& input, Model& model, const std::vector<std::vector<size_t>>& run_kernels) {
    std::vector<size_t> order{*input.baseline};
    for (size_t i = 0; i < input.sides.size(); i++)
        if (i != *input.baseline)
            order.push_back(i);
    Compared out;
    for (size_t i : order) {
        Side side{input.sides[i].label, {}};
        SideFacts facts;
        for (size_t r = 0; r < input.sides[i].runs.size(); r++) {
            const Run& run = input.sides[i].runs[r];
            if (!complete(run))
                continue;
            if (side.runs.empty()) {
                facts.kernel = run_kernels[i][r];
                facts.platform = platform_of(run.context);
            }
            side.runs.push_back(run.file);
            facts.start_time = std::max(facts.start_time, run.context.start_time);
        }
        if (side.runs.empty()) {
            model.warnings.push_back(side.label + " has no complete run: no verdicts " +
                                     (i == *input.baseline ? "against it" : "for it"));
            if (i == *input.baseline)
                return {};
            continue;
        }
        out.sides.push_back(std::move(side));
        out.facts.push_back(std::move(facts));
    }
    return out;
}

} // namespace

Result<Model> build_model(const ExportInput& input, const ModelOptions& options) {
    if (input.sides.empty())
        return Error{"no results to export"};
    Model model;
    std::vector<std::vector<size_t>> run_kernels(input.sides.size());
    for (size_t i = 0; i < input.sides.size(); i++)
        for (const Run& run : input.sides[i].runs)
            run_kernels[i].push_back(kernel_index(model, side_kernel(input.sides[i], run)));
    for (const auto& [label, facts] : options.facts) {
        auto side = side_named(input, label);
        if (!side)
            return side.error();
        for (size_t k : run_kernels[side.value()])
            model.kernels[k].facts = facts;
    }
    // A boot given twice (a file on two sides) is one set of tests: KCIDB merges by id.
    std::set<std::string> ids;
    for (size_t i = 0; i < input.sides.size(); i++)
        for (size_t r = 0; r < input.sides[i].runs.size(); r++)
            for (Test& t : run_tests(input.sides[i].runs[r], run_kernels[i][r], input.sides[i].label))
                if (ids.insert(t.id).second)
                    model.tests.push_back(std::move(t));
    if (!input.baseline)
        return model;
    if (input.sides.size() < 2)
        return Error{"a baseline and nothing to compare with it: give another side"};
    Compared c = compared_sides(input, model, run_kernels);
    if (c.sides.size() < 2)
        return model;
    auto report = compare_sides(c.sides, input.options);
    if (!report)
        return Error{"refused: " + report.error().message()};
    for (Test& t : verdict_tests(report.value(), c.facts, options.fail_on))
        model.tests.push_back(std::move(t));
    return model;
}

} // namespace initbench::exporting
