#include "host/cli/bisect_run.h"

#include "host/base/process.h"
#include "host/cli/bisect.h"
#include "host/engine/bisect_step.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBisectRunFooter =
    R"(Use, at the top of a kernel tree: initbench bisect GOOD BAD [options] -- BUILD COMMAND...
The options are bisect-step's (initbench bisect-step --help), and so is the rule that makes a
commit good or bad. Before git bisect starts, the range's ends are checked by that rule:
  1. GOOD is checked out, built and booted --baseline-boots times: those boots are the
     baseline (unless --baseline gives one, or --threshold is the rule: then GOOD is a step
     that must be good). If the baseline and the step's boot budget cannot decide at the
     limit, it stops here and says what would.
  2. BAD is checked out, built and booted as a step: it must be bad. A bad end that is good
     by this rule would make git name BAD itself without testing it.
  3. git bisect start BAD GOOD; git bisect run initbench bisect-step with the same options
     and the baseline. Every boot's results are kept in --save-dir (default: the git
     directory's initbench-bisect/). The bisection is left for git bisect log and reset.

Exit codes:
  0    git bisect named the first bad commit
  1    the ends are not good and bad by the rule: nothing was bisected
  2    bad command line, a git error, or a bisection already running
  3    git bisect ended without naming a commit (only skipped commits left)
  130  interrupted)";

void say(const std::string& line) {
    std::cout << "bisect: " << line << "\n" << std::flush;
}

struct Git {
    int code = -1;
    std::string out; // stdout, trailing newline removed
    std::string err;
};

// git bisect run, its output and its steps' on our own terminal as they come: its exit
// code, or kBisectRunInterrupted when a signal ended it.
int run_inheriting(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"git"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::cout << std::flush;
    const pid_t pid = ::fork();
    if (pid == 0)
        exec_or_exit(argv);
    int status = 0;
    while (pid > 0 && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (pid < 0 || WIFSIGNALED(status))
        return kBisectRunInterrupted;
    return WEXITSTATUS(status);
}

// git with these arguments, its stdout captured.
Git git(const std::vector<std::string>& args) {
    ChildRun run;
    run.argv = {"git"};
    run.argv.insert(run.argv.end(), args.begin(), args.end());
    Git g;
    run.on_output = [&](std::string_view bytes) {
        g.out.append(bytes);
        return false;
    };
    const ChildOutcome o = run_child(run);
    g.code = o.end == ChildOutcome::End::exited ? o.exit_code : -1;
    g.err = o.stderr_text.empty() ? o.error : o.stderr_text;
    while (!g.out.empty() && g.out.back() == '\n')
        g.out.pop_back();
    return g;
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// The commit a name gives, or why not.
Result<std::string> commit_of(const std::string& name) {
    Git g = git({"rev-parse", "--verify", "--quiet", name + "^{commit}"});
    if (g.code != 0 || g.out.empty())
        return Error{"'" + name + "' names no commit in this repository"};
    return g.out;
}

bool checkout(const std::string& what) {
    Git g = git({"checkout", "-q", "--detach", what});
    if (g.code != 0)
        say("git checkout " + what + " failed: " + first_line(g.err));
    return g.code == 0;
}

// The arguments for bisect-step: the user's, without our own option, with the baseline and
// the save directory ahead of the build command.
std::vector<std::string> step_arguments(std::vector<std::string> args,
                                        const std::vector<std::string>& added) {
    auto dashes = std::find(args.begin(), args.end(), "--");
    for (auto it = args.begin(); it != dashes;) {
        if (*it == "--baseline-boots" && it + 1 != dashes) {
            it = args.erase(it, it + 2);
            dashes = std::find(args.begin(), args.end(), "--");
        } else if (it->rfind("--baseline-boots=", 0) == 0) {
            it = args.erase(it);
            dashes = std::find(args.begin(), args.end(), "--");
        } else {
            ++it;
        }
    }
    args.insert(dashes, added.begin(), added.end());
    return args;
}

// What one end's step says of it, against what the range needs.
bool end_is(int rc, int wanted, const std::string& which, const std::string& name) {
    if (rc == wanted)
        return true;
    if (rc == kBisectInterrupted)
        return false;
    const std::string is = rc == kBisectGood   ? "good"
                           : rc == kBisectBad  ? "bad"
                           : rc == kBisectSkip ? "undecided (a skip)"
                                               : "not judged (an abort)";
    say("the " + which + " end " + name + " is " + is + " by this rule (above), not " +
        (wanted == kBisectGood ? "good" : "bad") + ": git bisect would " +
        (wanted == kBisectBad ? "name " + name + " itself without testing it"
                              : "bisect against a good end it cannot show good") +
        "; nothing was bisected");
    return false;
}

struct Range {
    std::string good, bad, good_commit, bad_commit, home; // home: where the user was
};

// Steps 1 and 2 of the footer: kBisectGood when both ends are as the range needs.
int check_ends(BisectCli& cli, const Range& r, unsigned baseline_boots,
               std::vector<std::string>& baseline, const std::vector<unsigned>& every_cpu) {
    const bool make_baseline = cli.baseline.empty() && cli.threshold.empty();
    if (!checkout(r.good_commit))
        return kBisectRunUsage;
    if (make_baseline) {
        say("the good end " + r.good + ": building it and booting it " +
            std::to_string(baseline_boots) + " times, the baseline");
        const int rc = boot_baseline(cli, "initbench", baseline_boots, baseline);
        if (rc != kBisectGood) {
            say("the good end's boots failed (above): nothing was bisected");
            return rc == kBisectInterrupted ? kBisectRunInterrupted : kBisectRunEnds;
        }
        cli.baseline = baseline;
    } else {
        say("the good end " + r.good + ": a step, which must be good");
        if (const int rc = run_step(cli, "initbench"); !end_is(rc, kBisectGood, "good", r.good))
            return rc == kBisectInterrupted ? kBisectRunInterrupted : kBisectRunEnds;
    }
    (void)pin_to_host_cpus(every_cpu);
    if (!checkout(r.bad_commit))
        return kBisectRunUsage;
    say("the bad end " + r.bad + ": a step, which must be bad");
    const int rc = run_step(cli, "initbench");
    if (rc == kBisectAbort)
        return kBisectRunEnds; // the setup cannot decide: bisect-step said what would
    if (!end_is(rc, kBisectBad, "bad", r.bad))
        return rc == kBisectInterrupted ? kBisectRunInterrupted : kBisectRunEnds;
    return kBisectGood;
}

int bisect(const std::vector<std::string>& all) {
    const bool help = !all.empty() && (all[0] == "--help" || all[0] == "-h");
    if (!help && (all.size() < 2 || all[0].starts_with("-") || all[1].starts_with("-"))) {
        std::cerr << "initbench bisect: give the good and the bad commit first: initbench bisect "
                     "GOOD BAD [options] -- BUILD... (--help says more)\n";
        return kBisectRunUsage;
    }
    Range r;
    if (!help)
        r.good = all[0], r.bad = all[1];
    const std::vector<std::string> rest(all.begin() + (help ? 0 : 2), all.end());
    BisectCli cli;
    unsigned baseline_boots = 2;
    CLI::App sub{"initbench bisect: check a range's ends, then git bisect run bisect-step",
                 "initbench bisect GOOD BAD"};
    sub.footer(kBisectRunFooter);
    add_step_options(sub, cli);
    sub.add_option("--baseline-boots", baseline_boots,
                   "Boots of the good end that make the baseline (the boot is the sample)")
        ->check(CLI::Range(2, 100))
        ->capture_default_str();
    sub.add_option("build", cli.build, "The build command, after --");
    std::vector<std::string> args(rest.rbegin(), rest.rend()); // CLI11 pops from the back
    try {
        sub.parse(args);
    } catch (const CLI::ParseError& e) {
        return sub.exit(e) == 0 ? kBisectRunFound : kBisectRunUsage;
    }
    for (auto [name, into] :
         {std::pair{&r.good, &r.good_commit}, std::pair{&r.bad, &r.bad_commit}}) {
        auto c = commit_of(*name);
        if (!c) {
            std::cerr << "initbench bisect: " << c.error().message() << "\n";
            return kBisectRunUsage;
        }
        *into = c.value();
    }
    if (git({"bisect", "log"}).code == 0) {
        std::cerr
            << "initbench bisect: a bisection is already running here: git bisect reset ends it\n";
        return kBisectRunUsage;
    }
    Git home = git({"symbolic-ref", "-q", "--short", "HEAD"});
    r.home = home.code == 0 ? home.out : git({"rev-parse", "HEAD"}).out;
    std::vector<std::string> added;
    if (cli.save_dir.empty()) {
        cli.save_dir = git({"rev-parse", "--absolute-git-dir"}).out + "/initbench-bisect";
        added = {"--save-dir", cli.save_dir};
    }
    std::vector<std::string> baseline;
    // A step pins us to the host CPUs of its boots; the builds that follow get them all back.
    const std::vector<unsigned> every_cpu = allowed_host_cpus();
    const int ends = check_ends(cli, r, baseline_boots, baseline, every_cpu);
    (void)pin_to_host_cpus(every_cpu);
    git({"checkout", "-q", r.home});
    if (ends != kBisectGood)
        return ends;
    if (!baseline.empty()) {
        std::string list;
        for (const auto& b : baseline)
            list += (list.empty() ? "" : ",") + b;
        added.insert(added.end(), {"--baseline", list});
    }
    say("both ends are as the rule needs: git bisect run from here");
    if (Git g = git({"bisect", "start", r.bad_commit, r.good_commit}); g.code != 0) {
        say("git bisect start failed: " + first_line(g.err));
        return kBisectRunUsage;
    }
    std::error_code ec;
    std::vector<std::string> run = {"bisect", "run",
                                    fs::read_symlink("/proc/self/exe", ec).string(), "bisect-step"};
    for (auto& a : step_arguments(rest, added))
        run.push_back(a);
    if (run_inheriting(run) == kBisectRunInterrupted)
        return kBisectRunInterrupted;
    const std::string log = git({"bisect", "log"}).out;
    const auto at = log.find("# first bad commit: ");
    if (at == std::string::npos) {
        say("git bisect ended without naming a commit (git bisect log says why); git bisect "
            "reset returns to " +
            r.home);
        return kBisectRunUndecided;
    }
    std::cout << "\n"; // git's last line may lack its newline
    say(first_line(log.substr(at + 2)) +
        "; the steps' lines above say by how much; git bisect "
        "reset returns to " +
        r.home);
    return kBisectRunFound;
}

} // namespace

void add_bisect_run_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("bisect", "A whole bisection: check the range's ends by "
                                             "bisect-step's rule, then git bisect run it");
    cmd->prefix_command();
    cmd->set_help_flag();
    cmd->footer("Run 'initbench bisect --help' for its options.");
    cmd->callback([cmd] {
        if (int rc = bisect(cmd->remaining()); rc != kBisectRunFound)
            throw CLI::RuntimeError(rc);
    });
}

} // namespace initbench
