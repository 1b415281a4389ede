#include "host/engine/ab.h"

#include "host/engine/ab_plan.h"

#include "common/text.h"
#include "host/base/output_file.h"
#include "host/base/process.h"
#include "host/boot/boot_backend.h"
#include "host/boot/boot_files.h"
#include "host/engine/boot_plan.h"
#include "host/compare/compare.h"
#include "host/compare/compare_render.h"
#include "host/compare/sequential.h"
#include "host/image/settings_check.h"
#include "host/report/report.h"
#include "host/report/report_html.h"
#include "host/results/results.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace initbench {

size_t interleaved_side(size_t i, size_t sides) {
    const size_t block = i / sides, pos = i % sides;
    return block % 2 == 0 ? pos : sides - 1 - pos;
}

size_t slot_of_boot(size_t side, size_t index, size_t jobs) { return (index - 1 + side) % std::max<size_t>(jobs, 1); }

SlotSchedule::SlotSchedule(size_t positions, size_t jobs, std::vector<size_t> slot_of_position)
    : jobs_(std::max<size_t>(jobs, 1)), slot_(std::move(slot_of_position)), started_(positions), finished_(positions) {}

void SlotSchedule::kept(size_t position) { started_.at(position) = finished_.at(position) = true; }

void SlotSchedule::finished(size_t position) { finished_.at(position) = true; }

std::optional<size_t> SlotSchedule::take(size_t slot) {
    const bool fixed = !slot_.empty();
    const size_t unfinished = size_t(std::find(finished_.begin(), finished_.end(), false) - finished_.begin());
    for (size_t p = 0; p < started_.size(); p++) {
        if (started_[p] || (fixed && slot_.at(p) != slot))
            continue;
        if (fixed && p >= unfinished + 2 * jobs_)
            return std::nullopt; // its turn comes when the slower slots catch up
        started_[p] = true;
        return p;
    }
    return std::nullopt;
}

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void say(const std::string& line) { std::cout << "ab: " << line << "\n" << std::flush; }

struct Boot {
    size_t side = 0, index = 0; // index: 1-based, per side
    fs::path out, log;
};

Boot boot_at(const fs::path& dir, const std::vector<SidePlan>& sides, size_t side, size_t index) {
    char name[32];
    std::snprintf(name, sizeof name, "-%03zu", index);
    const fs::path stem = dir / "runs" / (sides[side].label + name);
    return {side, index, stem.string() + ".json", stem.string() + ".log"};
}

class Ab {
public:
    // fixed_slots: each boot on the slot slot_of_boot gives it, looks every `jobs` boots a
    // side (boots at once on the wall clock).
    Ab(AbCli cli, std::vector<SidePlan> sides, std::vector<std::vector<unsigned>> slots, bool fixed_slots)
        : cli_(std::move(cli)), sides_(std::move(sides)), slots_(std::move(slots)), fixed_slots_(fixed_slots) {
        plan_.step = fixed_slots_ ? slots_.size() : 1; // slot_of_boot balances each multiple
        plan_.max_boots = cli_.max_boots;
        plan_.alpha = 1 - cli_.confidence;
        method_ = method_for_clock(
            value_named(compare_render::kMethodNames, cli_.method).value_or(Method::auto_), cli_.boot.clock);
        const size_t strata = host_cpu_strata(slots_, fixed_slots_);
        plan_.min_boots =
            cli_.min_boots != 0 ? (cli_.min_boots + plan_.step - 1) / plan_.step * plan_.step
            : method_ == Method::permutation ? permutation_min_boots(plan_.alpha, plan_.max_boots, plan_.rho, plan_.step, strata)
                                             : std::max<size_t>(2, plan_.step);
        if (plan_.looks())
            plan_.max_boots = plan_.last_look_boots(); // no boot past the last look
        done_.resize(sides_.size());
    }

    int run(BootBackend& backend) {
        if (int rc = resume(); rc >= 0)
            return rc;
        const std::vector<Boot> order = boot_order();
        std::vector<size_t> slot_of_position;
        for (const Boot& b : order)
            if (fixed_slots_)
                slot_of_position.push_back(slot_of_boot(b.side, b.index, slots_.size()));
        SlotSchedule schedule(order.size(), slots_.size(), std::move(slot_of_position));
        for (size_t p = 0; p < order.size(); p++)
            if (order[p].index <= done_[order[p].side].size())
                schedule.kept(p); // kept from an earlier run of this directory
        struct Running {
            size_t position, slot;
        };
        std::map<size_t, Running> running; // by the backend's id
        std::vector<bool> busy(slots_.size(), false);
        for (;;) {
            for (size_t slot = 0; slot < slots_.size() && !stop_ && !backend.interrupted(); slot++) {
                if (busy[slot])
                    continue;
                const auto p = schedule.take(slot);
                if (!p)
                    continue;
                const Boot& b = order[*p];
                auto id = backend.start(request(b, slots_[slot]));
                if (!id) {
                    say("cannot start a boot: " + id.error().message());
                    stop_ = true, exit_ = kAbFailed;
                    break;
                }
                say("boot " + b.out.filename().string() + " started");
                running[id.value()] = {*p, slot};
                busy[slot] = true;
            }
            if (running.empty())
                break;
            auto ended = backend.wait_any();
            if (!ended)
                continue; // interrupted: the loop stops starting boots and waits for the rest
            const Running r = running.at(ended->id);
            running.erase(ended->id);
            busy[r.slot] = false;
            schedule.finished(r.position);
            finished(order[r.position], *ended, backend.interrupted());
        }
        if (backend.interrupted()) {
            say("interrupted: " + kept_words() + " kept; the same command resumes");
            judge_what_finished();
            return kAbInterrupted;
        }
        if (exit_ == kAbFailed || exit_ == kAbRefused || exit_ == kAbUsage)
            return exit_;
        return conclude();
    }

private:
    BootRequest request(const Boot& b, const std::vector<unsigned>& host_cpus) const {
        BootRequest r;
        r.host_cpus = host_cpus;
        r.run = sides_[b.side].run;
        r.run.log_path = b.log.string();
        r.out_path = b.out.string();
        return r;
    }

    // Every boot of the budget in A B B A order.
    std::vector<Boot> boot_order() const {
        const size_t k = sides_.size();
        std::vector<size_t> index(k, 0);
        std::vector<Boot> order;
        for (size_t p = 0; p < k * plan_.max_boots; p++) {
            const size_t side = interleaved_side(p, k);
            order.push_back(boot_at(cli_.out_dir, sides_, side, ++index[side]));
        }
        return order;
    }

    size_t boots_a_side() const {
        size_t m = SIZE_MAX;
        for (const auto& d : done_)
            m = std::min(m, d.size());
        return m;
    }

    // A finished boot: its document read, a failure stops ab, a new look may decide.
    void finished(const Boot& b, const BootEnded& ended, bool interrupted) {
        const std::string name = b.out.filename().string();
        auto doc = read_run_document(b.out.string());
        // Cut by the signal: discarded, booted again on resume. A boot that completed as the
        // signal came is kept like any other.
        if (ended.exit_code == kExitInterrupted || (interrupted && !doc)) {
            std::error_code ec;
            fs::remove(b.out, ec); // redone when resumed
            return;
        }
        std::string why = !ended.error.empty() ? ended.error
                          : !doc          ? doc.error().message()
                          : !doc.value().failure.empty() ? doc.value().failure
                          : !doc.value().errors.empty()  ? "error record: " + doc.value().errors[0]
                                                         : "";
        if (!why.empty()) {
            say("FAIL " + name + ": " + why + " (console: " + b.log.string() + "; remove " + name +
                " to retry)");
            stop_ = true, exit_ = kAbFailed;
            return;
        }
        done_[b.side].finished(b.index, b.out.string());
        if (!resuming_)
            say("boot " + name + " done");
        if (!stop_) // once decided, boots still under way are kept but change nothing
            look();
    }

    // Reads what an earlier run of this directory left: complete runs count, interrupted ones
    // are redone, a failed one stops here as it did then. -1: go on booting.
    int resume() {
        resuming_ = true;
        for (size_t s = 0; s < sides_.size() && !stop_; s++)
            for (size_t i = 1;; i++) {
                Boot b = boot_at(cli_.out_dir, sides_, s, i);
                if (!fs::exists(b.out))
                    break;
                std::ifstream in(b.out);
                json doc = json::parse(in, nullptr, false);
                if (doc.is_object() && doc.value("verdict", "") == "interrupted") {
                    fs::remove(b.out);
                    break;
                }
                finished(b, BootEnded{}, false);
                if (stop_)
                    break;
            }
        resuming_ = false;
        if (boots_a_side() > 0)
            say("resumed with " + std::to_string(boots_a_side()) + " boot(s) a side");
        return stop_ && exit_ != kAbDecided ? exit_ : -1;
    }

    Result<Report> judge(const Look& look) const {
        std::vector<Side> sides;
        for (size_t s = 0; s < sides_.size(); s++) {
            Side side{sides_[s].label, {}};
            for (size_t i = 0; i < look.boots; i++) {
                auto r = read_results(done_[s].done()[i]);
                if (!r)
                    return r.error();
                side.runs.push_back(std::move(r.value()));
            }
            sides.push_back(std::move(side));
        }
        return compare_sides(sides, options(look));
    }

    CompareOptions options(const Look& look) const {
        CompareOptions o;
        o.method = method_;
        o.confidence = 1 - look.alpha;
        o.min_effect_pct = cli_.min_effect_pct;
        o.force = cli_.force;
        o.unit = SampleUnit::run; // boots are the samples: rounds of one boot are not independent
        if (look.number > 0)
            o.look = CompareOptions::Look{look.number, plan_.looks(), cli_.confidence};
        return o;
    }

    void look() {
        const Look l = look_at(plan_, boots_a_side());
        if (l.number == 0 || l.number <= last_look_.number)
            return;
        auto report = judge(l);
        if (!report) {
            say("refused: " + report.error().message());
            stop_ = true, exit_ = kAbRefused;
            return;
        }
        last_look_ = l;
        report_ = std::move(report.value());
        verdicts_ = chosen_verdicts(*report_, cli_.metrics);
        if (!verdicts_.unmatched.empty()) {
            say("--metric " + verdicts_.unmatched[0] + " matches no metric of these runs");
            stop_ = true, exit_ = kAbUsage;
            return;
        }
        std::string line;
        for (const auto& v : verdicts_.verdicts)
            line += "; " + v.id + " " + v.side + " " + compare_render::verdict_name(v.change.verdict) +
                    (v.change.pct ? " " + format_number(*v.change.pct, "%+.2f%%") : "");
        say("look " + std::to_string(l.number) + " of " + std::to_string(plan_.looks()) + ", " +
            std::to_string(l.boots) + " boots a side, alpha " + format_number(l.alpha, "%.4g") + line);
        write_outputs();
        if (verdicts_.decided())
            stop_ = true;
    }

    // "A 1, B 0 finished boot(s)": what each side has kept, complete and in order.
    std::string kept_words() const {
        std::string words;
        for (size_t s = 0; s < sides_.size(); s++)
            words += (s ? ", " : "") + sides_[s].label + " " + std::to_string(done_[s].size());
        return words + " finished boot(s)";
    }

    // On interrupt: every side's finished boots compared (as many a side as each has), at the
    // first look's level, into the outputs; no look was planned there, so it decides nothing
    // and ab resumes from these boots. The last look's outputs stay when no boot finished since.
    void judge_what_finished() {
        const size_t n = boots_a_side();
        if (n == 0 || n == last_look_.boots) {
            if (n == 0)
                say("no comparison of what finished: a side has no finished boot");
            return;
        }
        Look l = look_at(plan_, plan_.min_boots);
        l.number = 0;
        l.boots = n;
        auto report = judge(l);
        if (!report) {
            say("no comparison of what finished: " + report.error().message());
            return;
        }
        last_look_ = l;
        report_ = std::move(report.value());
        verdicts_ = chosen_verdicts(*report_, cli_.metrics);
        say("what finished, " + std::to_string(n) + " boots a side, compared at the first look's level: " +
            cli_.out_dir + "/comparison.txt");
        write_outputs();
    }

    json ab_section() const {
        json verdicts = json::array();
        for (const auto& v : verdicts_.verdicts) {
            const auto& c = v.change;
            auto opt = [](auto x) { return x ? json(*x) : json(); };
            verdicts.push_back({{"metric", v.id},
                                {"side", v.side},
                                {"verdict", compare_render::verdict_name(c.verdict)},
                                {"pct", opt(c.pct)},
                                {"detectable_pct", opt(c.detectable_pct)},
                                {"samples_needed", opt(c.samples_needed)},
                                {"note", c.note}});
        }
        return {{"boots_a_side", last_look_.boots},
                {"look", last_look_.number},
                {"looks", plan_.looks()},
                {"min_boots", plan_.min_boots},
                {"look_every", plan_.step},
                {"slots", fixed_slots_ ? "fixed" : "greedy"},
                {"method", compare_render::method_name(method_)},
                {"alpha", plan_.alpha},
                {"look_alpha", last_look_.alpha},
                {"spending", "power family, rho " + format_number(plan_.rho, "%g")},
                {"decided", verdicts_.decided()},
                {"verdicts", verdicts}};
    }

    // comparison.json, comparison.txt and report.html at each look; a file that cannot be
    // written is said, and ends ab as a failure once it has decided or run out.
    void write_outputs() {
        if (!report_)
            return;
        const fs::path dir = cli_.out_dir;
        json j = report_json(*report_);
        j["ab"] = ab_section();
        std::vector<Status> written{write_output_file(dir / "comparison.json", j.dump(1) + "\n"),
                                    write_output_file(dir / "comparison.txt", render(*report_, render_options()))};
        std::vector<std::string> args, labels;
        for (size_t s = 0; s < sides_.size(); s++) {
            std::string files;
            for (size_t i = 0; i < last_look_.boots; i++)
                files += (i ? "," : "") + done_[s].done()[i];
            args.push_back(files);
            labels.push_back(sides_[s].label);
        }
        if (auto sides = report::load_sides(args, labels)) {
            auto page = report::analyse(std::move(sides.value()), options(last_look_));
            written.push_back(write_output_file(dir / "report.html", report::render_html(page).html));
        }
        for (const Status& w : written)
            if (!w) {
                say(w.error().message());
                exit_ = kAbFailed;
            }
    }

    // The comparison's text opens with the metrics ab decides on; the others come after.
    RenderOptions render_options() const {
        RenderOptions ro{Format::text, false, {}};
        for (const auto& v : verdicts_.verdicts)
            ro.judged.push_back(v.id);
        return ro;
    }

    // Each chosen metric's verdict restated for the last line: "; fork/ops_per_s B DIFFERENT
    // -5.12 % [-5.40 %, -4.84 %]", and for UNKNOWN what these boots detect and what would decide.
    std::string restated() const {
        std::string out;
        for (const auto& v : verdicts_.verdicts) {
            const Change& c = v.change;
            std::string name = compare_render::verdict_name(c.verdict);
            std::transform(name.begin(), name.end(), name.begin(), ::toupper);
            out += "; " + v.id + " " + v.side + " " + name + (c.pct ? " " + format_number(*c.pct, "%+.2f") + " %" : "");
            if (const std::string ci = compare_render::interval_text(c); !ci.empty())
                out += " " + ci;
            if (c.verdict == Decision::unknown)
                if (const std::string why = compare_render::undecided_text(c, last_look_.boots, last_look_.boots);
                    !why.empty())
                    out += " (" + why + ")";
        }
        return out;
    }

    int conclude() const {
        if (!report_) {
            say("no look: fewer than " + std::to_string(plan_.min_boots) + " boots a side finished");
            return kAbUndecided;
        }
        std::cout << render(*report_, render_options());
        const bool decided = verdicts_.decided();
        say(std::string(decided ? "decided" : "undecided") + " after " + std::to_string(last_look_.boots) + " of " +
            std::to_string(plan_.max_boots) + " boots a side" + restated() + "; outputs: " + cli_.out_dir +
            "/comparison.json, comparison.txt, report.html");
        return decided ? kAbDecided : kAbUndecided;
    }

    AbCli cli_;
    std::vector<SidePlan> sides_;
    std::vector<std::vector<unsigned>> slots_; // host CPUs per boot at once (host_cpu_slots)
    SequentialPlan plan_;
    bool fixed_slots_ = false;
    Method method_ = Method::auto_; // resolved for the clock
    std::vector<BootsInOrder> done_; // per side
    Look last_look_;
    std::optional<Report> report_;
    LookVerdicts verdicts_;
    bool stop_ = false, resuming_ = false;
    int exit_ = kAbDecided;
};

} // namespace

int run_ab(AbCli cli) {
    auto usage = [](const std::string& why) {
        std::cerr << "initbench ab: " << why << "\n";
        return kAbUsage;
    };
    if ((cli.min_boots != 0 && cli.min_boots < 2) || cli.max_boots < cli.min_boots)
        return usage("--min-boots must be >= 2 and <= --max-boots");
    auto sides = plan_sides(cli);
    if (!sides) {
        std::cerr << "initbench ab: " << sides.error().message() << "\n";
        return kAbUsage;
    }
    if (!cli.boot.kernel_config.empty() &&
        std::any_of(sides.value().begin(), sides.value().end(),
                    [&](const SidePlan& s) { return s.kernel != sides.value()[0].kernel; }))
        return usage("--kernel-config names one kernel's .config: with several kernels, put each one's beside it");
    // Each side as `initbench run` will boot it, checked before the first boot: the image, the
    // guest's size (the experiment's machine.* too), the clock against it, the parameters.
    unsigned cpus = 1;
    for (auto& side : sides.value()) {
        auto run = plan_boot(cli.boot, side.params, "initbench");
        if (!run)
            return usage(side.label + ": " + run.error().message());
        if (!settings_accepted("ab: side " + side.label, run.value().boot.image, side.params, "", run.value().boot.cpus))
            return kAbUsage;
        if (auto s = check_kernel_file(side.kernel, cli.boot.arch); !s)
            return usage(side.label + ": --kernel " + s.error().message());
        // Each kernel is extracted once, before the first boot: one that cannot boot as asked
        // (a damaged bzImage, no PVH entry) fails here rather than in every boot.
        auto kernel_boot = choose_kernel_boot(side.kernel, cli.boot.arch, boot_mode(cli.boot.boot), run.value().cache_dir);
        if (!kernel_boot) {
            std::cerr << "initbench ab: " << side.label << ": " << kernel_boot.error().message() << "\n";
            return kAbFailed;
        }
        side.run = std::move(run.value());
        side.run.boot.kernel = side.kernel;
        side.run.kernel_boot = std::move(kernel_boot.value());
        cli.boot.image = side.run.boot.image;
        cpus = std::max(cpus, side.run.boot.cpus);
    }
    if (auto diff = experiment_difference(sides.value()); !diff.empty() && !cli.force) {
        std::cerr << "initbench ab: different experiments: " << diff
                  << " (--force compares them anyway)\n";
        return kAbRefused;
    }
    const std::vector<unsigned> allowed = allowed_host_cpus();
    const BootsAtOnce at_once = boots_at_once(cli.jobs, cli.boot.clock, allowed.size(), cpus);
    cli.jobs = at_once.jobs;
    if (!at_once.warning.empty())
        std::cerr << "initbench ab: warning: " << at_once.warning << "\n";
    auto slots = host_cpu_slots(cli.jobs, cpus, allowed);
    if (auto s = claim_directory(cli.out_dir, plan_document(cli, sides.value())); !s) {
        std::cerr << "initbench ab: " << s.error().message() << "\n";
        return kAbUsage;
    }
    auto backend = child_boot_backend();
    const bool fixed_slots = cli.jobs > 1 && cli.boot.clock != "icount";
    return drive_ab(std::move(cli), std::move(sides.value()), std::move(slots), fixed_slots, *backend);
}

int drive_ab(AbCli cli, std::vector<SidePlan> sides, std::vector<std::vector<unsigned>> slots, bool fixed_slots,
             BootBackend& backend) {
    Ab ab(std::move(cli), std::move(sides), std::move(slots), fixed_slots);
    return ab.run(backend);
}


} // namespace initbench
