// Reading export's inputs: results files into compare's RunFiles, each with what its document
// says of the boot (the platform, when it started); `ab` directories into their sides.
#include "host/export/export_read.h"

#include "common/json_fields.h"
#include "host/compare/compare_render.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/stat.h>

namespace initbench::exporting {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The results document records no clock time; its file is written when the boot ends, so
// the boot started the file's time less the boot's own length (host.wall.total_s). The same
// file gives the same time on every export.
std::string start_time(const std::string& path, const json& doc) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return "";
    double total = json_num(json_obj(json_obj(doc, "host"), "wall"), "total_s").value_or(0);
    std::time_t start = st.st_mtim.tv_sec - std::time_t(std::max(0.0, total));
    std::tm tm{};
    ::gmtime_r(&start, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    return text;
}

// The QEMU machine asked for on its command line (-machine q35,accel=... or -M virt), "" when
// the argv leaves QEMU's default.
std::string machine_of(const json& argv) {
    if (!argv.is_array())
        return "";
    for (size_t i = 0; i + 1 < argv.size(); i++)
        if (argv[i] == "-machine" || argv[i] == "-M") {
            std::string value = argv[i + 1].is_string() ? argv[i + 1].get<std::string>() : "";
            return value.substr(0, value.find(','));
        }
    return "";
}

RunContext context_of(const json& doc, const std::string& path) {
    const json& host = json_obj(doc, "host");
    RunContext c;
    const json& argv = host.contains("qemu_argv") ? host["qemu_argv"] : json();
    if (argv.is_array() && !argv.empty() && argv[0].is_string())
        c.qemu_binary = fs::path(argv[0].get<std::string>()).filename().string();
    c.machine = machine_of(argv);
    c.accel = json_str(host, "accel");
    c.arch = json_str(host, "arch");
    // A log parsed elsewhere (LAVA) has no host section: the header says the architecture.
    const json& records = doc.contains("records") ? doc["records"] : json();
    if (c.arch.empty() && records.is_array() && !records.empty())
        c.arch = json_str(records[0], "arch");
    c.cpus = json_num(host, "cpus");
    c.memory_mb = json_num(host, "memory_mb");
    c.start_time = start_time(path, doc);
    c.log_name = fs::path(path).stem().string() + ".log";
    c.content = digest(doc.dump());
    const json& config = json_obj(json_obj(doc, "environment"), "kernel_config");
    c.config_name = fs::path(json_str(config, "path")).filename().string();
    c.config_sha256 = json_str(config, "sha256");
    return c;
}

Result<ExportSide> read_side(const std::string& arg, const std::string& label) {
    auto paths = side_files(arg);
    if (!paths)
        return paths.error();
    ExportSide side{label, {}};
    for (const auto& p : paths.value()) {
        auto run = read_run(p);
        if (!run)
            return run.error();
        side.runs.push_back(std::move(run.value()));
    }
    return side;
}

Result<json> read_json(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return errno_error(path.string());
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return Error{path.string() + ": not a JSON object"};
    return j;
}

// A side's boots in an ab directory: the files its last look compared (comparison.json),
// or where there was no look yet, every runs/LABEL-NNN.json.
std::vector<std::string> ab_side_files(const fs::path& dir, const std::string& label, const json& comparison,
                                       size_t index) {
    std::vector<std::string> files;
    const json& sides = comparison.contains("sides") ? comparison["sides"] : json();
    if (sides.is_array() && index < sides.size() && sides[index].contains("files"))
        for (const auto& f : sides[index]["files"])
            if (f.is_string())
                files.push_back(f.get<std::string>());
    if (!files.empty())
        return files;
    const std::regex name(std::regex_replace(label, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                          R"(-\d+\.json)");
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "runs", ec))
        if (std::regex_match(e.path().filename().string(), name))
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

// ab judged its verdicts at its last look's level, not at --confidence: export judges alike.
void ab_options(const json& plan, const json& comparison, CompareOptions& o) {
    o.method = value_named(compare_render::kMethodNames, json_str(plan, "method", "auto")).value_or(Method::auto_);
    o.min_effect_pct = json_num(plan, "min_effect_pct").value_or(o.min_effect_pct);
    o.confidence = json_num(plan, "confidence").value_or(o.confidence);
    const json& ab = json_obj(comparison, "ab");
    if (auto alpha = json_num(ab, "look_alpha")) {
        o.look = CompareOptions::Look{size_t(json_num(ab, "look").value_or(0)),
                                      size_t(json_num(ab, "looks").value_or(0)), o.confidence};
        o.confidence = 1 - *alpha;
    }
}

Result<std::vector<ExportSide>> read_ab(const fs::path& dir, CompareOptions& options) {
    auto plan = read_json(dir / "ab.json");
    if (!plan)
        return plan.error();
    auto comparison = read_json(dir / "comparison.json");
    const json none = json::object();
    const json& comp = comparison ? comparison.value() : none;
    ab_options(plan.value(), comp, options);
    std::vector<ExportSide> sides;
    const json& planned = plan.value().contains("sides") ? plan.value()["sides"] : json();
    for (size_t i = 0; planned.is_array() && i < planned.size(); i++) {
        ExportSide side{json_str(planned[i], "label", "side" + std::to_string(i + 1)), {}};
        for (const auto& f : ab_side_files(dir, side.label, comp, i)) {
            auto run = read_run(f);
            if (!run)
                return run.error();
            side.runs.push_back(std::move(run.value()));
        }
        if (side.runs.empty())
            return Error{dir.string() + ": side " + side.label + " has no boots in runs/"};
        sides.push_back(std::move(side));
    }
    if (sides.size() < 2)
        return Error{dir.string() + "/ab.json: not an ab plan of two sides or more"};
    return sides;
}

// --baseline: one of the SIDE arguments (by its text or its label), else a side of its own.
// where[i]: the first of input's sides that SIDE argument i gave.
Status place_baseline(const ReadRequest& request, const std::vector<std::string>& labels,
                      const std::vector<size_t>& where, ExportInput& input) {
    for (size_t i = 0; i < request.sides.size(); i++)
        if (request.baseline == request.sides[i] || request.baseline == labels[i]) {
            input.baseline = where[i];
            return ok();
        }
    for (size_t i = 0; i < input.sides.size(); i++)
        if (request.baseline == input.sides[i].label) { // a side of an ab directory
            input.baseline = i;
            return ok();
        }
    auto side = read_side(request.baseline, side_label(request.baseline, 0, 1));
    if (!side)
        return Error{"--baseline " + request.baseline + " names no side: " + side.error().message()};
    input.sides.insert(input.sides.begin(), std::move(side.value()));
    input.baseline = 0;
    return ok();
}

} // namespace

Side ExportSide::side() const {
    Side s{label, {}};
    for (const auto& r : runs)
        s.runs.push_back(r.file);
    return s;
}

Result<Run> read_run(const std::string& path) {
    auto doc = read_json(path);
    if (!doc)
        return doc.error();
    auto file = run_file(doc.value(), path);
    if (!file)
        return file.error();
    return Run{std::move(file.value()), context_of(doc.value(), path)};
}

bool is_ab_directory(const std::string& path) {
    std::error_code ec;
    return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / "ab.json", ec);
}

Result<ExportInput> read_input(const ReadRequest& request) {
    if (!request.labels.empty() && request.labels.size() != request.sides.size())
        return Error{std::to_string(request.labels.size()) + " labels for " +
                     std::to_string(request.sides.size()) + " sides"};
    const auto labels = request.labels.empty() ? side_labels(request.sides) : request.labels;
    ExportInput input;
    input.options = request.options;
    std::vector<size_t> where;
    for (size_t i = 0; i < request.sides.size(); i++) {
        where.push_back(input.sides.size());
        if (is_ab_directory(request.sides[i])) {
            auto sides = read_ab(request.sides[i], input.options);
            if (!sides)
                return sides.error();
            if (!input.baseline)
                input.baseline = input.sides.size(); // ab's first side is its base
            for (auto& s : sides.value())
                input.sides.push_back(std::move(s));
            continue;
        }
        auto side = read_side(request.sides[i], labels[i]);
        if (!side)
            return side.error();
        input.sides.push_back(std::move(side.value()));
    }
    if (!request.baseline.empty())
        IB_TRY(place_baseline(request, labels, where, input));
    return input;
}

} // namespace initbench::exporting
