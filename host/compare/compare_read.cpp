// compare's input: results documents, read whole or refused (a cut-off log, a failed run,
// records of a version this build cannot read), and the files a SIDE names.
#include "host/compare/compare.h"

#include "common/record.h"
#include "common/record_types.h"
#include "common/summary.h"
#include "common/json_fields.h"
#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace initbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Settings that change how long or how a run ends, not what it measures.
const std::set<std::string> kRunOnlySettings = {"rounds", "timeout", "end", "loglevel"};

std::string icount_option(const json& host) {
    const json* argv = json_field(host, "qemu_argv");
    if (!argv || !argv->is_array())
        return "";
    for (size_t i = 0; i + 1 < argv->size(); i++)
        if ((*argv)[i] == "-icount" && (*argv)[i + 1].is_string())
            return (*argv)[i + 1].get<std::string>();
    return "";
}

json experiment_of(const json& header, const json& host) {
    json exp = json::object();
    json values = json_obj(json_obj(header, "config"), "values");
    for (const auto& key : kRunOnlySettings)
        values.erase(key);
    exp["config"] = values;
    for (const char* key : {"arch", "accel", "memory_mb"})
        if (const json* f = json_field(host, key))
            exp[key] = *f;
    if (auto cpus = json_num(json_obj(header, "kernel"), "cpus_online"))
        exp["cpus"] = *cpus;
    return exp;
}

} // namespace

Result<RunFile> parse_run_document(std::string_view text, const std::string& path) {
    const json doc = json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded())
        return Error{path + ": not a JSON object"};
    return run_file(doc, path);
}

Result<RunFile> run_file(const json& doc, const std::string& path) {
    if (!doc.is_object())
        return Error{path + ": not a JSON object"};
    auto version = json_num(doc, "initbench_results");
    if (!version || *version != 1)
        return Error{path + ": not an initbench results document (initbench_results != 1)"};
    RunFile run;
    run.path = path;
    run.verdict = json_str(doc, "verdict", "?");
    const std::string status = json_str(json_obj(doc, "log"), "status", "?");
    if (status != "complete")
        run.failure = "the log is " + status + ": no numbers are taken from it";
    else if (run.verdict != "ok" && run.verdict != "errors")
        run.failure = "the run ended with '" + run.verdict + "' (" + json_str(doc, "reason") + ")";
    const json* records = json_field(doc, "records");
    if (!records || !records->is_array())
        return Error{path + ": no records"};
    const json* header = nullptr;
    for (const auto& r : *records) {
        if (const json* v = json_field(r, "v"); v && !known_record_version(*v))
            return Error{path + ": " + json_str(r, "type", "?") +
                         " record: " + unknown_version_reason(*v)};
        const std::string type = json_str(r, "type");
        if (type == "header" && !header)
            header = &r;
        else if (type == "kernel")
            run.kernel_events++;
        else if (type == "error")
            run.errors.push_back(error_text(r));
        else if (const RecordType* t = record_type_of(r); t && measures(*t))
            run.records.push_back(r);
    }
    if (!header && !run.failure.empty())
        return run; // failed before its first record: the failure is all there is to say
    if (!header)
        return Error{path + ": no header record"};
    const json& host = json_obj(doc, "host");
    const json& kernel = json_obj(*header, "kernel");
    run.run_id = json_str(*header, "run_id");
    run.kernel_release = json_str(kernel, "release");
    run.build_id = json_str(kernel, "build_id");
    run.cmdline = json_str(kernel, "cmdline");
    run.kernel_sha256 = json_str(json_obj(host, "kernel"), "sha256");
    run.image_sha256 = json_str(json_obj(host, "image"), "sha256");
    run.clock = json_str(host, "clock", "unknown");
    if (run.clock == "icount")
        run.clock_detail = icount_option(host);
    run.experiment = experiment_of(*header, host);
    run.qemu = json_str(json_obj(json_obj(doc, "environment"), "qemu"), "banner");
    run.image_version = json_str(*header, "initbench");
    run.image_commit = json_str(*header, "initbench_commit");
    if (const auto cpus = host.find("host_cpus"); cpus != host.end() && cpus->is_array())
        for (const auto& cpu : *cpus)
            run.host_cpus += (run.host_cpus.empty() ? "" : ",") + cpu.dump();
    if (const auto others = host.find("others_busy_cpus"); others != host.end() && others->is_number())
        run.others_busy_cpus = others->get<double>();
    return run;
}

namespace {
Result<RunFile> refuse_failed(Result<RunFile> run) {
    if (run && !run.value().failure.empty())
        return Error{run.value().path + ": " + run.value().failure};
    return run;
}
} // namespace

Result<RunFile> parse_results(std::string_view text, const std::string& path) {
    return refuse_failed(parse_run_document(text, path));
}

Result<RunFile> results_of(const json& doc, const std::string& path) { return refuse_failed(run_file(doc, path)); }

Result<RunFile> read_run_document(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return errno_error(path);
    std::string text{std::istreambuf_iterator<char>(in), {}};
    return parse_run_document(text, path);
}

Result<RunFile> read_results(const std::string& path) {
    return refuse_failed(read_run_document(path));
}

Result<std::vector<std::string>> side_files(const std::string& arg) {
    std::vector<std::string> paths;
    std::stringstream list(arg);
    std::string item;
    while (std::getline(list, item, ',')) {
        if (item.empty())
            continue;
        std::error_code ec;
        if (!fs::is_directory(item, ec)) {
            paths.push_back(item);
            continue;
        }
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(item, ec))
            if (entry.is_regular_file() && entry.path().extension() == ".json")
                found.push_back(entry.path().string());
        if (found.empty())
            return Error{item + ": no *.json files"};
        std::sort(found.begin(), found.end());
        paths.insert(paths.end(), found.begin(), found.end());
    }
    if (paths.empty())
        return Error{"'" + arg + "': no results files"};
    return paths;
}

namespace {
// The last `depth` components of a path given last first, as a path: "gen/r1".
std::string join_tail(const std::vector<std::string>& tail, size_t depth) {
    std::string out;
    for (size_t k = std::min(depth, tail.size()); k-- > 0;)
        out += (out.empty() ? "" : "/") + tail[k];
    return out;
}
} // namespace

std::string side_label(const std::string& arg, size_t index, size_t count) {
    if (arg.find(',') == std::string::npos) {
        std::string stem = fs::path(arg).filename().string();
        if (stem.empty())
            stem = fs::path(arg).parent_path().filename().string();
        if (stem.size() > 5 && stem.ends_with(".json"))
            stem.resize(stem.size() - 5);
        if (!stem.empty() && stem.size() <= 24)
            return stem;
    }
    if (index == 0)
        return "base";
    return count == 2 ? "new" : "new" + std::to_string(index);
}

std::vector<std::string> side_labels(const std::vector<std::string>& args) {
    const size_t n = args.size();
    std::vector<std::string> labels(n);
    std::vector<std::vector<std::string>> tails(n); // each path's components, last first
    for (size_t i = 0; i < n; i++) {
        labels[i] = side_label(args[i], i, n);
        if (args[i].find(',') != std::string::npos)
            continue;
        for (fs::path p = fs::path(args[i]).lexically_normal(); !p.empty() && p != p.root_path();
             p = p.parent_path())
            if (!p.filename().empty())
                tails[i].push_back(p.filename().string());
        if (!tails[i].empty() && tails[i][0].size() > 5 && tails[i][0].ends_with(".json"))
            tails[i][0].resize(tails[i][0].size() - 5);
    }
    auto alike = [&](size_t i) {
        for (size_t j = 0; j < n; j++)
            if (j != i && labels[j] == labels[i])
                return true;
        return false;
    };
    // One more directory at a time for the sides still alike, while their paths have one.
    for (size_t depth = 2;; depth++) {
        std::vector<size_t> longer;
        for (size_t i = 0; i < n; i++)
            if (alike(i) && tails[i].size() >= depth && labels[i] == join_tail(tails[i], depth - 1))
                longer.push_back(i);
        if (longer.empty())
            break;
        for (size_t i : longer)
            labels[i] = join_tail(tails[i], depth);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (labels[i] == labels[j])
                labels[i] += "#" + std::to_string(i + 1);
    return labels;
}

Result<Side> load_side(const std::string& arg, const std::string& label, bool keep_failed) {
    Side side{label, {}};
    auto paths = side_files(arg);
    if (!paths)
        return paths.error();
    for (const auto& p : paths.value()) {
        auto run = keep_failed ? read_run_document(p) : read_results(p);
        if (!run)
            return run.error();
        side.runs.push_back(std::move(run.value()));
    }
    std::error_code ec;
    if (fs::is_directory(arg, ec))
        if (const std::string differ = pooled_difference(side.runs); !differ.empty())
            return Error{arg + ": " + differ + ": give each its own side (an ab directory is split by side)"};
    return side;
}

std::string pooled_difference(const std::vector<RunFile>& runs) {
    for (const RunFile& r : runs) {
        const RunFile& first = runs.front();
        if (r.build_id != first.build_id || r.kernel_sha256 != first.kernel_sha256)
            return "runs of two kernels (" + fs::path(first.path).filename().string() + " and " +
                   fs::path(r.path).filename().string() + ")";
        if (r.cmdline != first.cmdline)
            return "runs of two parameter sets ('" + first.cmdline + "' in " + fs::path(first.path).filename().string() +
                   ", '" + r.cmdline + "' in " + fs::path(r.path).filename().string() + ")";
    }
    return "";
}

namespace {

// An ab directory's sides: its plan's labels, each with its finished boots.
Result<SideArgs> ab_directory_sides(const fs::path& dir) {
    std::ifstream in(dir / "ab.json");
    const json plan = json::parse(in, nullptr, false);
    if (!plan.is_object() || !plan.contains("sides") || !plan["sides"].is_array())
        return Error{(dir / "ab.json").string() + ": not an ab plan"};
    SideArgs out;
    std::ifstream looked(dir / "comparison.json");
    const json last = json::parse(looked, nullptr, false);
    const json* ab = last.is_object() ? json_field(last, "ab") : nullptr;
    const bool a_look = ab && ab->is_object() && ab->value("look", 0) > 0 && last.contains("sides");
    if (a_look) {
        out.look = CompareOptions::Look{ab->value("look", size_t(0)), ab->value("looks", size_t(0)),
                                        1 - ab->value("alpha", 0.05)};
        out.look_confidence = 1 - ab->value("look_alpha", 0.05);
    }
    for (size_t index = 0; index < plan["sides"].size(); index++) {
        const json& s = plan["sides"][index];
        const std::string label = s.value("label", "");
        std::vector<std::string> files;
        if (a_look && index < last["sides"].size())
            for (const auto& f : last["sides"][index].value("files", json::array()))
                if (f.is_string())
                    files.push_back(f.get<std::string>());
        std::error_code ec;
        for (const auto& e : a_look ? fs::directory_iterator() : fs::directory_iterator(dir / "runs", ec)) {
            const std::string name = e.path().filename().string();
            // LABEL-NNN.json: the label, a dash, digits.
            if (e.path().extension() == ".json" && name.size() > label.size() + 6 && name.starts_with(label + "-") &&
                std::all_of(name.begin() + long(label.size()) + 1, name.end() - 5,
                            [](unsigned char c) { return std::isdigit(c); }))
                files.push_back(e.path().string());
        }
        if (files.empty())
            return Error{dir.string() + ": side " + label + " has no finished boot"};
        std::sort(files.begin(), files.end());
        std::string arg;
        for (const auto& f : files)
            arg += (arg.empty() ? "" : ",") + f;
        out.args.push_back(arg);
        out.labels.push_back(label);
    }
    return out;
}

} // namespace

Result<SideArgs> expand_sides(const std::vector<std::string>& args, const std::vector<std::string>& labels) {
    SideArgs out;
    bool from_ab = false;
    for (size_t i = 0; i < args.size(); i++) {
        std::error_code ec;
        if (!fs::exists(fs::path(args[i]) / "ab.json", ec)) {
            out.args.push_back(args[i]);
            out.labels.push_back(labels.empty() ? "" : labels.at(i));
            continue;
        }
        auto sides = ab_directory_sides(args[i]);
        if (!sides)
            return sides.error();
        from_ab = true;
        out.args.insert(out.args.end(), sides.value().args.begin(), sides.value().args.end());
        out.labels.insert(out.labels.end(), sides.value().labels.begin(), sides.value().labels.end());
        out.look = sides.value().look;
        out.look_confidence = sides.value().look_confidence;
    }
    if (from_ab && !labels.empty())
        return Error{"--label with an ab directory: its sides are named by its plan"};
    if (!from_ab && labels.empty())
        out.labels = side_labels(out.args);
    for (size_t i = 0; i < out.args.size(); i++)
        if (out.labels[i].empty()) // a side given beside an ab directory
            out.labels[i] = side_label(out.args[i], i, out.args.size());
    return out;
}

} // namespace initbench
