// `initbench compare` through its command line: exit codes, the gate (--fail-on) on missing
// metrics and failed runs, warnings on stderr. Synthetic results documents; no QEMU.
#include "host/cli/compare_cli.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tests/unit/compare_fixture.h"

#include <gtest/gtest.h>

namespace initbench {
namespace {

using nlohmann::json;
using V = std::vector<double>;

// `initbench compare ARGS` through its CLI: exit code, stdout and stderr.
struct CliRun {
    int code = 0;
    std::string out, err;
};

class CompareCliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "ib-compare-test-XXXXXX").string();
        ASSERT_TRUE(::mkdtemp(tmpl.data()));
        dir_ = tmpl;
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string write(const std::string& name, const Spec& s) { return write_doc(name, make_doc(s)); }
    std::string write_doc(const std::string& name, const json& doc) {
        std::string path = dir_ + "/" + name;
        std::ofstream(path) << doc.dump();
        return path;
    }

    // The document with no ops_per_s in its phases: the metric the gate's rules name, missing.
    static json without_rate(json doc) {
        for (auto& r : doc["records"])
            if (r["type"] == "phase")
                r["metrics"].erase("ops_per_s");
        return doc;
    }

    static CliRun run(std::vector<std::string> args) {
        CLI::App app;
        add_compare_command(app);
        args.insert(args.begin(), {"initbench", "compare", "--format", "text"});
        std::vector<const char*> argv;
        for (const auto& a : args)
            argv.push_back(a.c_str());
        CliRun r;
        ::testing::internal::CaptureStdout();
        ::testing::internal::CaptureStderr();
        try {
            app.parse(int(argv.size()), argv.data());
        } catch (const CLI::RuntimeError& e) {
            r.code = e.get_exit_code();
        }
        r.out = ::testing::internal::GetCapturedStdout();
        r.err = ::testing::internal::GetCapturedStderr();
        return r;
    }

    std::string dir_;
};

// ---- an ab directory is an input; a directory of two kernels is never pooled (issue 53) --------

// An ab output directory: its plan names the sides, runs/ holds their finished boots (and the
// consoles, and a boot cut by an interrupt that is not LABEL-NNN.json).
TEST_F(CompareCliTest, AnAbDirectoryIsItsSides) {
    std::filesystem::create_directories(dir_ + "/ab/runs");
    write_doc("ab/ab.json", {{"initbench_ab", 1}, {"sides", {{{"label", "head"}}, {{"label", "slub"}}}}});
    for (int i = 1; i <= 3; i++) {
        write("ab/runs/head-00" + std::to_string(i) + ".json", with_rates(scaled(200 + i), "h" + std::to_string(i), "aa"));
        write("ab/runs/slub-00" + std::to_string(i) + ".json", with_rates(scaled(140 + i), "s" + std::to_string(i), "bb"));
    }
    write_doc("ab/comparison.json", {{"initbench_compare", 1}});
    std::ofstream(dir_ + "/ab/runs/head-001.log") << "console";
    CliRun r = run({dir_ + "/ab"});
    EXPECT_EQ(r.code, kCompareOk) << r.err;
    EXPECT_NE(r.out.find("head: 3 run(s)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("slub: 3 run(s)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-29.70%"), std::string::npos) << "slub against head, not pooled: " << r.out;
    CliRun labelled = run({dir_ + "/ab", "--labels", "x"});
    EXPECT_EQ(labelled.code, kCompareUsage);
}

// After ab's looks began, its directory is the boots its last look compared, judged at that
// look's level: all the boots at --confidence would be one more look that no plan allowed.
TEST_F(CompareCliTest, AnAbDirectoryIsItsLastLookAtItsLevel) {
    std::filesystem::create_directories(dir_ + "/ab/runs");
    write_doc("ab/ab.json", {{"initbench_ab", 1}, {"sides", {{{"label", "head"}}, {{"label", "slub"}}}}});
    json looked = {{"sides", json::array()}, {"ab", {{"look", 1}, {"looks", 3}, {"alpha", 0.05}, {"look_alpha", 0.01}}}};
    for (const std::string side : {"head", "slub"}) {
        json files = json::array();
        for (int i = 1; i <= 3; i++) {
            const std::string path = write("ab/runs/" + side + "-00" + std::to_string(i) + ".json",
                                           with_rates(scaled(side == "head" ? 200 : 140), side + std::to_string(i),
                                                      side == "head" ? "aa" : "bb"));
            if (i <= 2)
                files.push_back(path); // boot 3 ended after the look
        }
        looked["sides"].push_back({{"label", side}, {"files", files}});
    }
    write_doc("ab/comparison.json", looked);
    CliRun r = run({dir_ + "/ab"});
    EXPECT_EQ(r.code, kCompareOk) << r.err;
    EXPECT_NE(r.out.find("head: 2 run(s)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("at 99 % (look 1 of 3"), std::string::npos) << r.out;
}

// runs/ of an ab directory given as one side: two kernels, refused naming them, never pooled.
TEST_F(CompareCliTest, ADirectoryOfTwoKernelsIsRefusedNotPooled) {
    std::filesystem::create_directories(dir_ + "/runs");
    write("runs/A-001.json", with_rates(scaled(200), "a1", "aa"));
    write("runs/B-001.json", with_rates(scaled(140), "b1", "bb"));
    std::string base = write("base.json", with_rates(scaled(200), "base", "aa"));
    CliRun r = run({base, dir_ + "/runs"});
    EXPECT_EQ(r.code, kCompareRefused) << r.out;
    EXPECT_NE(r.err.find("runs: runs of two kernels (A-001.json and B-001.json): give each its own side"),
              std::string::npos)
        << r.err;
    CliRun one = run({dir_ + "/runs/A-001.json"});
    EXPECT_EQ(one.code, kCompareUsage) << "one side: nothing to compare";
}

TEST_F(CompareCliTest, OneWallClockRunASideExitsZeroWithoutMarks) {
    std::string a = write("head.json", with_rates(scaled(200), "a"));
    std::string b = write("patch.json", slow_spec("wall"));
    CliRun r = run({a, b});
    EXPECT_EQ(r.code, kCompareOk) << r.err;
    EXPECT_NE(r.out.find("~ -30."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('*'), std::string::npos) << r.out;
    CliRun fail = run({a, b, "--fail-on", "ops_per_s:-5%"});
    EXPECT_EQ(fail.code, kCompareFailed);
    EXPECT_NE(fail.err.find("FAIL ops_per_s:-5%: fork/ops_per_s -30."), std::string::npos)
        << fail.err;
    EXPECT_NE(fail.err.find("the failure is on the effect size alone"), std::string::npos)
        << fail.err;
    CliRun round = run({a, b, "--unit", "round"});
    EXPECT_EQ(round.code, kCompareOk);
    EXPECT_NE(round.out.find("* -30."), std::string::npos) << round.out;
}

TEST_F(CompareCliTest, DifferentQemuIsAWarningOnStderrAndInTheHeader) {
    Spec a = with_rates(scaled(200), "a"), b = with_rates(scaled(200), "b", "bb");
    a.qemu = "QEMU emulator version 7.2.17";
    b.qemu = "QEMU emulator version 8.2.2";
    CliRun r = run({write("a.json", a), write("b.json", b)});
    EXPECT_EQ(r.code, kCompareOk) << r.err;
    EXPECT_NE(r.err.find("initbench compare: warning: QEMU differs"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("warning: QEMU differs"), std::string::npos) << r.out;
    EXPECT_LT(r.out.find("warning: QEMU differs"), r.out.find("fork")) << "in the header, before the table";
}

TEST_F(CompareCliTest, IcountRoundsAreMarkedAndFailOnIsQualified) {
    std::string a = write("head.json", with_clock(with_rates(scaled(200), "a"), "icount"));
    std::string b = write("patch.json", slow_spec("icount"));
    CliRun r = run({a, b});
    EXPECT_EQ(r.code, kCompareOk);
    EXPECT_NE(r.out.find("* -30."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("no verdict:"), std::string::npos) << "the metrics are judged";
    CliRun fail = run({a, b, "--fail-on", "ops_per_s:-5%"});
    EXPECT_EQ(fail.code, kCompareFailed);
    EXPECT_EQ(fail.err.find("effect size alone"), std::string::npos) << fail.err;
}

// ---- the gate: a failed side never passes ---------------------------------------------------

// The user's case: the second run misspelled a key, so its phase has no ops_per_s and an
// error record names the key. The rule would never fire on a missing metric; the gate fails.
TEST_F(CompareCliTest, GateFailsOnAMissingMetricAndOnErrorRecords) {
    std::string a = write("good.json", with_rates(scaled(200), "a"));
    Spec typo = with_rates(scaled(200), "b", "bb");
    typo.verdict = "errors";
    typo.extra_records = json::array({{{"v", 1}, {"type", "error"}, {"what", "config"},
                                       {"key", "initbench.duraton"}, {"value", "2"},
                                       {"source", "cmdline"},
                                       {"reason", "unknown key (did you mean duration?)"}}});
    std::string b = write_doc("typo.json", without_rate(make_doc(typo)));
    CliRun r = run({a, b, "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(r.code, kCompareFailed) << r.err;
    EXPECT_NE(r.err.find("FAIL typo: " + b + ": error record: config (initbench.duraton=2): unknown key"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("FAIL fork/ops_per_s:-5%: fork/ops_per_s is missing on typo"), std::string::npos)
        << r.err;
    // The explicit opt-out is the old gate: nothing fired.
    CliRun allowed = run({a, b, "--fail-on", "fork/ops_per_s:-5%", "--allow-missing"});
    EXPECT_EQ(allowed.code, kCompareOk) << allowed.err;
    EXPECT_EQ(allowed.err.find("FAIL"), std::string::npos) << allowed.err;
    // Error records alone, every metric there, fail the gate too.
    Spec errors = with_rates(scaled(200), "c", "cc");
    errors.verdict = "errors";
    errors.extra_records = json::array({{{"v", 1}, {"type", "error"}, {"what", "phase fork"},
                                         {"key", "load.x"}, {"reason", "exited with status 2"}}});
    CliRun e = run({a, write("errors.json", errors), "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(e.code, kCompareFailed) << e.err;
    EXPECT_NE(e.err.find("error record: phase fork (load.x): exited with status 2"), std::string::npos) << e.err;
    // Without a rule compare still compares, and warns.
    EXPECT_EQ(run({a, b}).code, kCompareOk);
}

// A clean run (verdict ok, no error record) whose phases lack the metric the rule names:
// the missing metric is the gate's only reason to fail, and its FAIL line the only one.
TEST_F(CompareCliTest, GateFailsOnAMissingMetricAlone) {
    std::string a = write("good.json", with_rates(scaled(200), "a"));
    std::string b = write_doc("lean.json", without_rate(make_doc(with_rates(scaled(200), "b", "bb"))));
    CliRun r = run({a, b, "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(r.code, kCompareFailed) << r.err;
    EXPECT_NE(r.err.find("FAIL fork/ops_per_s:-5%: fork/ops_per_s is missing on lean"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("FAIL"), r.err.rfind("FAIL")) << "one FAIL line, the missing metric's:\n" << r.err;
    // The same sides pass with the opt-out, and a rule on a metric both have passes the gate.
    EXPECT_EQ(run({a, b, "--fail-on", "fork/ops_per_s:-5%", "--allow-missing"}).code, kCompareOk);
    CliRun present = run({a, b, "--fail-on", "fork/funclat:kernel_clone/avg:+50%"});
    EXPECT_EQ(present.code, kCompareOk) << present.err;
}

TEST_F(CompareCliTest, GateFailsOnARunThatDidNotComplete) {
    std::string a = write("good.json", with_rates(scaled(200), "a"));
    Spec cut = with_rates(scaled(200), "b", "bb");
    cut.status = "incomplete";
    cut.verdict = "incomplete";
    std::string b = write("cut.json", cut);
    CliRun r = run({a, b, "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(r.code, kCompareFailed) << r.err;
    EXPECT_NE(r.err.find("FAIL cut: " + b + ": the log is incomplete"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cut has no complete run"), std::string::npos) << r.err;
    // Without the gate a cut-off log is refused, as before.
    EXPECT_EQ(run({a, b}).code, kCompareRefused);
    EXPECT_EQ(run({a, b, "--fail-on", "fork/ops_per_s:-5%", "--allow-missing"}).code, kCompareRefused);
}

// The same runs on both sides compare nothing: SAME is certain, and no gate may pass it.
TEST_F(CompareCliTest, GateFailsWhenASideIsTheBaseAgain) {
    std::string a = write("a.json", with_rates(scaled(200), "a")), b = write("b.json", with_rates(scaled(201), "b"));
    CliRun r = run({a + "," + b, a + "," + b, "--labels", "head,patch", "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(r.code, kCompareFailed) << r.err;
    EXPECT_NE(r.err.find("FAIL patch: every run is also head's (the same run ids): a comparison of nothing"),
              std::string::npos)
        << r.err;
    // One run in common is a warning, not a failure of the gate.
    std::string c = write("c.json", with_rates(scaled(199), "c"));
    CliRun some = run({a + "," + b, a + "," + c, "--fail-on", "fork/ops_per_s:-5%"});
    EXPECT_EQ(some.code, kCompareOk) << some.err;
    EXPECT_EQ(some.err.find("comparison of nothing"), std::string::npos) << some.err;
}

TEST_F(CompareCliTest, SameKernelWarningSaysWhichParametersItCompared) {
    Spec a = with_rates(scaled(200), "a"), b = with_rates(scaled(200), "b");
    b.cmdline = a.cmdline + " initbench.duraton=2";
    CliRun r = run({write("a.json", a), write("b.json", b)});
    EXPECT_NE(r.out.find("the same kernel parameters besides initbench.*"), std::string::npos) << r.out;
    b.cmdline = a.cmdline + " nokaslr";
    r = run({write("a.json", a), write("b.json", b)});
    EXPECT_EQ(r.out.find("the same kernel parameters"), std::string::npos) << r.out;
}

// ---- bisect-step's decisions -------------------------------------------------------------

} // namespace
} // namespace initbench
