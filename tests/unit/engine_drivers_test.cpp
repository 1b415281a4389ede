// ab's and bisect-step's drivers over a fake boot backend, with no QEMU: each "boot" is a
// results document made from figures the test chose, so that the decisions (the level of
// every look, the exit at the budget, what each boot was asked to boot) are checked against
// numbers whose verdict is known.
#include "host/boot/boot_backend.h"
#include "host/compare/sequential.h"
#include "host/engine/ab.h"
#include "host/engine/bisect_step.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "tests/unit/compare_fixture.h"
#include "tests/unit/temp_dir.h"

namespace initbench {
namespace {

namespace fs = std::filesystem;

// Boots nothing: boot n (from 0) of a kernel is the results document of figure(kernel, n)
// (the kernel by its file name),
// one run whose every round has that rate, written where the request says; boots end in
// the order they started. on_start sees each request before it "boots".
class FakeBackend final : public BootBackend {
public:
    FakeBackend(std::string clock, std::function<double(const std::string& kernel, size_t n)> figure)
        : clock_(std::move(clock)), figure_(std::move(figure)) {}

    std::function<void(const BootRequest&)> on_start;
    std::vector<BootRequest> requests;
    size_t interrupt_after = SIZE_MAX; // interrupted() once this many boots have started

    Result<size_t> start(const BootRequest& request) override {
        if (on_start)
            on_start(request);
        requests.push_back(request);
        const std::string kernel = fs::path(request.run.boot.kernel).filename().string();
        const size_t n = boots_[kernel]++;
        Spec spec = with_clock(with_rates(V(3, figure_(kernel, n)), run_id(requests.size())), clock_);
        spec.build_id = std::string(40, kernel.empty() ? '0' : kernel[0]); // a build of its own
        auto outcome = std::make_shared<BootOutcome>();
        outcome->verdict = {kExitOk, "ok", "complete"};
        outcome->document = make_doc(spec);
        BootEnded ended;
        ended.id = requests.size() - 1;
        ended.exit_code = kExitOk;
        if (!request.out_path.empty())
            if (auto s = write_document(request.out_path, *outcome); !s)
                ended.error = s.error().message();
        ended.outcome = std::move(outcome);
        ended_.push_back(std::move(ended));
        return ended_.back().id;
    }
    std::optional<BootEnded> wait_any() override {
        if (ended_.empty())
            return std::nullopt;
        BootEnded e = std::move(ended_.front());
        ended_.pop_front();
        return e;
    }
    size_t running() const override { return ended_.size(); }
    bool interrupted() const override { return requests.size() >= interrupt_after; }

private:
    static std::string run_id(size_t n) {
        char id[33];
        std::snprintf(id, sizeof id, "%032zx", n);
        return id;
    }
    std::string clock_;
    std::function<double(const std::string&, size_t)> figure_;
    std::map<std::string, size_t> boots_;
    std::deque<BootEnded> ended_;
};

// Figures around `mean` that look like noise: the same on every call.
double noisy(double mean, size_t n, double spread) {
    static const double kDeviations[] = {-0.9, 0.7, 0.2, -0.4, 1.0, -0.6, 0.5, -0.1, 0.8, -1.0, 0.3, -0.3};
    return mean * (1 + spread * kDeviations[n % std::size(kDeviations)]);
}

SidePlan side(const std::string& label, const std::string& kernel, std::vector<std::string> params = {}) {
    SidePlan s{label, kernel, std::move(params), {}};
    s.run.boot.kernel = kernel;
    s.run.boot.params = s.params;
    return s;
}

// ab's boots and looks as run_ab starts them once its checks have passed: the output
// directory claimed for the plan (the kernels' bytes are in it: the files a and b of the
// output directory, and so is the image), one slot.
int drive(AbCli cli, std::vector<SidePlan> sides, FakeBackend& fake) {
    cli.boot.image = (fs::path(cli.out_dir) / "image").string();
    std::ofstream(cli.boot.image) << "image";
    for (auto& s : sides) {
        s.kernel = s.run.boot.kernel = (fs::path(cli.out_dir) / s.kernel).string();
        std::ofstream(s.kernel) << "kernel " << s.label;
    }
    if (auto claimed = claim_directory(cli.out_dir, plan_document(cli, sides)); !claimed) {
        ADD_FAILURE() << claimed.error().message();
        return -1;
    }
    return drive_ab(cli, std::move(sides), {{}}, false, fake);
}

AbCli ab_options(const std::string& out_dir, unsigned max_boots) {
    AbCli cli;
    cli.out_dir = out_dir;
    cli.boot.clock = "icount"; // Welch's test: its p-values are known to the test
    cli.max_boots = max_boots;
    cli.min_effect_pct = 1;
    cli.metrics = {"fork/ops_per_s"};
    return cli;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, false);
}

// Every look: the level it was judged at is the one alpha spending allows at that look, and a
// change was called DIFFERENT exactly when its p-value is below that level. One look at least
// saw a p-value below the overall error rate that its own level did not allow, so that a look
// judged at the overall rate would have decided there.
TEST(AbDriver, EachLookJudgesAtTheLevelAlphaSpendingAllows) {
    TempDir dir;
    // B is 1.5 % above A, with 1 % noise: the evidence grows boot by boot.
    FakeBackend fake("icount", [](const std::string& kernel, size_t n) {
        return kernel == "a" ? noisy(1000, n, 0.01) : noisy(1015, n + 5, 0.01);
    });
    std::map<size_t, nlohmann::json> looks; // by look number: comparison.json as written then
    fake.on_start = [&](const BootRequest&) {
        auto j = read_json(dir / "comparison.json");
        if (j.is_object())
            looks[j["ab"]["look"].get<size_t>()] = j;
    };
    const AbCli cli = ab_options(dir.path().string(), 10);
    testing::internal::CaptureStdout();
    const int rc = drive(cli, {side("A", "a"), side("B", "b")}, fake);
    const std::string said = testing::internal::GetCapturedStdout();
    if (auto last = read_json(dir / "comparison.json"); last.is_object())
        looks[last["ab"]["look"].get<size_t>()] = last;

    SequentialPlan plan;
    plan.max_boots = cli.max_boots;
    plan.alpha = 1 - cli.confidence;
    ASSERT_FALSE(looks.empty());
    bool held_back = false;
    for (const auto& [number, j] : looks) {
        const Look expected = look_at(plan, j["ab"]["boots_a_side"].get<size_t>());
        EXPECT_EQ(number, expected.number);
        EXPECT_NEAR(j["ab"]["look_alpha"].get<double>(), expected.alpha, 1e-12) << "look " << number;
        EXPECT_NEAR(j["confidence"].get<double>(), 1 - expected.alpha, 1e-12) << "look " << number;
        for (const auto& m : j["metrics"]) {
            if (m["id"] != "fork/ops_per_s")
                continue;
            const auto& change = m["sides"][1]["change"];
            ASSERT_TRUE(change["p"].is_number()) << "look " << number;
            const double p = change["p"].get<double>();
            EXPECT_EQ(change["verdict"] == "different", p < expected.alpha)
                << "look " << number << ": p " << p << ", level " << expected.alpha;
            held_back |= p < plan.alpha && p >= expected.alpha;
        }
    }
    EXPECT_TRUE(held_back) << "no look had p between its level and the overall error rate: the data test nothing";
    EXPECT_EQ(rc, kAbDecided) << said;
    EXPECT_EQ(read_json(dir / "comparison.json")["ab"]["verdicts"][0]["verdict"], "different");
}

// A change that stays inside the noise: every look UNKNOWN, so ab boots its whole budget and
// exits 4, its outputs saying undecided.
TEST(AbDriver, TheBudgetSpentWithAMetricUnknownExitsUndecided) {
    TempDir dir;
    FakeBackend fake("icount", [](const std::string& kernel, size_t n) {
        return kernel == "a" ? noisy(1000, n, 0.2) : noisy(1010, n + 3, 0.2);
    });
    const AbCli cli = ab_options(dir.path().string(), 3);
    testing::internal::CaptureStdout();
    const int rc = drive(cli, {side("A", "a"), side("B", "b")}, fake);
    const std::string said = testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, kAbUndecided) << said;
    EXPECT_EQ(fake.requests.size(), 6u); // the whole budget: 3 boots a side
    const auto j = read_json(dir / "comparison.json");
    ASSERT_TRUE(j.is_object());
    EXPECT_FALSE(j["ab"]["decided"].get<bool>());
    EXPECT_EQ(j["ab"]["verdicts"][0]["verdict"], "unknown");
    // The last line restates the verdict, what these boots detect and what would decide.
    const std::string last = said.substr(said.rfind("ab: "));
    EXPECT_NE(last.find("ab: undecided after 3 of 3 boots a side; fork/ops_per_s B UNKNOWN "), std::string::npos) << said;
    EXPECT_NE(last.find("(n = 3 a side detects changes of >= "), std::string::npos) << last;
}

// Each boot is its own side's plan (kernel, parameters, console next to its document), in the
// interleaved order A B B A.
TEST(AbDriver, EachBootIsItsSidesPlanInterleavedOrder) {
    TempDir dir;
    FakeBackend fake("icount", [](const std::string&, size_t n) { return noisy(1000, n, 0.3); });
    const AbCli cli = ab_options(dir.path().string(), 2);
    testing::internal::CaptureStdout();
    drive(cli, {side("A", "a", {"initbench.phases=fork"}), side("B", "b", {"initbench.phases=fork", "quiet"})}, fake);
    testing::internal::GetCapturedStdout();
    ASSERT_EQ(fake.requests.size(), 4u);
    const std::vector<std::string> order = {"a", "b", "b", "a"};
    for (size_t i = 0; i < order.size(); i++) {
        const BootRequest& r = fake.requests[i];
        EXPECT_EQ(fs::path(r.run.boot.kernel).filename(), order[i]);
        EXPECT_EQ(r.run.boot.params.size(), order[i] == "a" ? 1u : 2u);
        EXPECT_EQ(fs::path(r.run.log_path).replace_extension(".json").string(), r.out_path);
        EXPECT_EQ(fs::path(r.out_path).parent_path(), dir.path() / "runs");
    }
}

// Interrupted with A's first boot and B's first two finished: the kept boots are counted a
// side, not as the fewest a side, and what finished is compared (no planned look: nothing is
// decided), exit 130.
TEST(AbDriver, AnInterruptCountsEachSidesKeptBootsAndComparesThem) {
    TempDir dir;
    FakeBackend fake("icount", [](const std::string&, size_t n) { return noisy(1000, n, 0.01); });
    fake.interrupt_after = 3; // A-001 B-001 B-002
    testing::internal::CaptureStdout();
    const int rc = drive(ab_options(dir.path().string(), 4), {side("A", "a"), side("B", "b")}, fake);
    const std::string said = testing::internal::GetCapturedStdout();
    EXPECT_EQ(rc, kAbInterrupted) << said;
    EXPECT_NE(said.find("ab: interrupted: A 1, B 2 finished boot(s) kept; the same command resumes"), std::string::npos)
        << said;
    const auto j = read_json(dir / "comparison.json");
    ASSERT_TRUE(j.is_object()) << said;
    EXPECT_EQ(j["ab"]["look"], 0);
    EXPECT_EQ(j["ab"]["boots_a_side"], 1);
    EXPECT_FALSE(j["ab"]["decided"].get<bool>());
}

// bisect-step against results files of the good kernel, one boot a step and more while
// undecided, on the icount clock.
struct StepFixture {
    TempDir dir;
    BisectCli cli;
    StepPlan plan;

    StepFixture() {
        cli.kernel = "step";
        cli.metric = "fork/ops_per_s";
        cli.boots = 1;
        cli.max_boots = 3;
        cli.boot.clock = "icount";
        cli.save_dir = dir.path().string();
        plan.bad_pct = -10;
        for (size_t n = 0; n < 3; n++)
            plan.baseline.push_back(run_of(with_clock(with_rates(V(3, noisy(1000, n, 0.01)), "good" + std::to_string(n)), "icount")));
    }
    int step(FakeBackend& fake) {
        RunOptions run;
        run.boot.kernel = cli.kernel;
        testing::internal::CaptureStdout();
        const int rc = drive_step(cli, plan, fake, run, std::nullopt);
        said = testing::internal::GetCapturedStdout();
        return rc;
    }
    std::string said;
};

TEST(StepDriver, AStepStillUndecidedAtMaxBootsIsSkipped) {
    StepFixture f;
    // At the -10 % limit, against a baseline whose boots differ by 5 %: neither shown within
    // the limit nor beyond it in 3 boots.
    f.plan.baseline.clear();
    for (size_t n = 0; n < 3; n++)
        f.plan.baseline.push_back(run_of(with_clock(with_rates(V(3, noisy(1000, n, 0.05)), "good" + std::to_string(n)), "icount")));
    FakeBackend fake("icount", [](const std::string&, size_t n) { return noisy(900, n, 0.001); });
    EXPECT_EQ(f.step(fake), kBisectSkip) << f.said;
    EXPECT_EQ(fake.requests.size(), 3u) << f.said; // the budget, no more
    EXPECT_EQ(std::distance(fs::directory_iterator(f.dir.path()), fs::directory_iterator{}), 3) << f.said;
}

TEST(StepDriver, AClearStepIsDecidedAtItsFirstBoot) {
    StepFixture f;
    FakeBackend same("icount", [](const std::string&, size_t n) { return noisy(1000, n + 1, 0.01); });
    EXPECT_EQ(f.step(same), kBisectGood) << f.said;
    EXPECT_EQ(same.requests.size(), 1u);
    StepFixture g;
    FakeBackend slower("icount", [](const std::string&, size_t n) { return noisy(700, n, 0.01); });
    EXPECT_EQ(g.step(slower), kBisectBad) << g.said;
    EXPECT_EQ(slower.requests.size(), 1u);
}

} // namespace
} // namespace initbench
