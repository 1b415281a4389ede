// `initbench export`: each boot's numbers, skips and errors, the verdicts as statuses, ids
// that are stable and unique, and the input refused before anything is written.
#include "tests/unit/export_fixture.h"

#include <set>

namespace initbench::exporting {
namespace {

TEST(Export, EachMetricOfEachRoundIsADoneNumber) {
    TempDir dir;
    Spec s = with_rates({200, 210, 220}, "r1");
    auto model = model_of({{write_side(dir, "one", {s})}, {}, "", {}});
    ASSERT_TRUE(model.ok()) << model.error().message();
    auto doc = kcidb_of(model.value());
    auto tests = tests_at(doc, "initbench.fork.ops_per_s");
    ASSERT_EQ(tests.size(), 3u);
    for (size_t r = 0; r < 3; r++) {
        EXPECT_EQ(tests[r]["status"], "DONE");
        EXPECT_EQ(tests[r]["misc"]["round"], r);
        EXPECT_EQ(tests[r]["misc"]["run_id"], "r1");
        EXPECT_EQ(tests[r]["number"]["unit"], "forks/s");
        EXPECT_EQ(tests[r]["environment"]["misc"]["platform"], "qemu-system-x86_64 machine default, accel tcg");
    }
    EXPECT_EQ(tests[1]["number"]["value"], 210);
    EXPECT_EQ(tests_at(doc, "initbench.fork.funclat.kernel_clone.avg").size(), 3u);
    EXPECT_EQ(doc["version"], (nlohmann::json{{"major", 5}, {"minor", 3}}));
    ASSERT_EQ(doc["builds"].size(), 1u);
    EXPECT_EQ(doc["builds"][0]["architecture"], "x86_64");
    EXPECT_FALSE(doc["builds"][0].contains("config_name")); // not given to the boot
}

// A boot given the kernel's .config (run --kernel-config) names it on the build.
TEST(Export, TheBuildNamesTheConfigWhenTheBootWasGivenIt) {
    TempDir dir;
    nlohmann::json doc = make_doc(Spec{});
    doc["environment"]["kernel_config"] = {{"path", "/boot/config-6.1.0-57-amd64"}, {"sha256", "cc"}};
    auto model = model_of({{dir.file("r.json", doc.dump())}, {}, "", {}});
    ASSERT_TRUE(model.ok()) << model.error().message();
    const auto build = kcidb_of(model.value())["builds"][0];
    EXPECT_EQ(build["config_name"], "config-6.1.0-57-amd64");
    EXPECT_EQ(build["misc"]["kernel_config_sha256"], "cc");
}

// KCIDB's path takes letters, digits, '_' and '-' between its dots.
TEST(Export, PathsKeepToKcidbsCharacters) {
    EXPECT_EQ(path_of("fork/funclat:kernel_clone/percentiles.p99"),
              (std::vector<std::string>{"fork", "funclat", "kernel_clone", "percentiles", "p99"}));
    EXPECT_EQ(path_of("tcp[clients=64]/ops_per_s"), (std::vector<std::string>{"tcp-clients-64", "ops_per_s"}));
    EXPECT_EQ(path_of("none#2/x y"), (std::vector<std::string>{"none-2", "x-y"}));
}

TEST(Export, IdsAreStableAndUnique) {
    TempDir dir;
    const std::string side = write_side(dir, "a", runs_at(200, "a", 2));
    auto first = model_of({{side}, {}, "", {}});
    auto again = model_of({{side}, {}, "", {}});
    ASSERT_TRUE(first.ok() && again.ok());
    auto ids = [](const nlohmann::json& doc) {
        std::vector<std::string> out;
        for (const char* kind : {"checkouts", "builds", "tests"})
            for (const auto& o : doc[kind])
                out.push_back(o["id"].get<std::string>());
        return out;
    };
    const auto a = ids(kcidb_of(first.value())), b = ids(kcidb_of(again.value()));
    EXPECT_EQ(a, b);
    EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size()) << "ids repeat";
    for (const auto& id : a)
        EXPECT_EQ(id.rfind("test_lab:", 0), 0u) << id;
}

TEST(Export, AnUnsupportedProbeIsSkipWithItsReason) {
    TempDir dir;
    Spec s;
    s.extra_records.push_back({{"v", 1}, {"type", "probe"}, {"phase", "fork"}, {"round", 0}, {"probe", "funclat"},
                               {"function", "task_mm_cid_work"}, {"supported", false}, {"reason", "not in BTF"}});
    auto model = model_of({{write_side(dir, "one", {s})}, {}, "", {}});
    ASSERT_TRUE(model.ok()) << model.error().message();
    auto tests = tests_at(kcidb_of(model.value()), "initbench.fork.funclat.task_mm_cid_work");
    ASSERT_EQ(tests.size(), 1u);
    EXPECT_EQ(tests[0]["status"], "SKIP");
    EXPECT_EQ(tests[0]["log_excerpt"], "not in BTF");
    EXPECT_FALSE(tests[0].contains("number"));
}

// A run with error records, and one whose log was cut off: one ERROR each, with the cause,
// and not one of their numbers as DONE.
TEST(Export, AFailedRunIsErrorAndNoneOfItsNumbersIsDone) {
    TempDir dir;
    Spec errors = with_rates({200, 200, 200}, "e1");
    errors.verdict = "errors";
    errors.extra_records.push_back({{"v", 1}, {"type", "error"}, {"what", "perf"}, {"reason", "ENOENT"}});
    Spec cut = with_rates({200, 200, 200}, "c1");
    cut.status = "incomplete";
    for (const Spec& s : {errors, cut}) {
        auto model = model_of({{write_side(dir, s.run_id, {s})}, {}, "", {}});
        ASSERT_TRUE(model.ok()) << model.error().message();
        auto doc = kcidb_of(model.value());
        ASSERT_EQ(doc["tests"].size(), 1u) << doc["tests"].dump();
        const auto& t = doc["tests"][0];
        EXPECT_EQ(t["status"], "ERROR");
        EXPECT_EQ(t["path"], "initbench");
        EXPECT_FALSE(t.contains("number"));
        EXPECT_NE(t["log_excerpt"].get<std::string>().find(s.status == "complete" ? "perf" : "incomplete"),
                  std::string::npos)
            << t["log_excerpt"];
    }
}

// The verdict test of fork/ops_per_s for a candidate against a baseline.
nlohmann::json verdict(const std::vector<Spec>& base, const std::vector<Spec>& next, ModelOptions options = {}) {
    TempDir dir;
    const std::string b = write_side(dir, "base", base), n = write_side(dir, "next", next);
    auto model = model_of({{b, n}, {"base", "next"}, "base", {}}, options);
    EXPECT_TRUE(model.ok()) << model.error().message();
    auto tests = model.ok() ? tests_at(kcidb_of(model.value()), "initbench.compare.fork.ops_per_s")
                            : std::vector<nlohmann::json>{};
    EXPECT_EQ(tests.size(), 1u);
    return tests.empty() ? nlohmann::json() : tests[0];
}

TEST(Export, AWorseDifferentIsFailAndABetterOneIsPass) {
    auto worse = verdict(runs_at(200, "a"), runs_at(140, "b", 5, "bb"));
    EXPECT_EQ(worse["misc"]["verdict"], "DIFFERENT");
    EXPECT_EQ(worse["status"], "FAIL");
    EXPECT_NE(worse["comment"].get<std::string>().find("DIFFERENT vs 6.1.0-57-amd64 baseline"), std::string::npos)
        << worse["comment"];
    EXPECT_EQ(worse["misc"]["interval_pct"].size(), 2u);
    EXPECT_EQ(worse["environment"]["misc"]["platform"], "qemu-system-x86_64 machine default, accel tcg");
    EXPECT_FALSE(worse["start_time"].get<std::string>().empty());
    auto better = verdict(runs_at(200, "a"), runs_at(260, "b", 5, "bb"));
    EXPECT_EQ(better["misc"]["verdict"], "DIFFERENT");
    EXPECT_EQ(better["status"], "PASS");
    auto same = verdict(runs_at(200, "a"), runs_at(200, "b", 5, "bb"));
    EXPECT_EQ(same["misc"]["verdict"], "SAME");
    EXPECT_EQ(same["status"], "PASS");
}

TEST(Export, UnknownIsNeverPassOrFail) {
    // Two runs a side: the permutation test cannot reach 5 %, and 30 % is no SAME.
    auto unknown = verdict(runs_at(200, "a", 2), runs_at(140, "b", 2, "bb"));
    EXPECT_EQ(unknown["misc"]["verdict"], "UNKNOWN");
    EXPECT_EQ(unknown["status"], "DONE");
    EXPECT_TRUE(unknown["misc"].contains("what_would_decide")) << unknown.dump();
}

TEST(Export, FailOnDecidesTheMetricsItNames) {
    auto rule = [](const char* text) {
        ModelOptions o;
        o.fail_on.push_back(parse_fail_rule(text).value());
        return o;
    };
    // 30 % worse: under a 50 % limit it passes, over a 20 % limit it fails.
    EXPECT_EQ(verdict(runs_at(200, "a"), runs_at(140, "b", 5, "bb"), rule("fork/ops_per_s:-50%"))["status"], "PASS");
    auto fails = verdict(runs_at(200, "a"), runs_at(140, "b", 5, "bb"), rule("fork/ops_per_s:-20%"));
    EXPECT_EQ(fails["status"], "FAIL");
    EXPECT_NE(fails["log_excerpt"].get<std::string>().find("fork/ops_per_s:-20%"), std::string::npos);
}

TEST(Export, BadInputIsRefusedWithAClearError) {
    EXPECT_FALSE(check_origin("My-Lab").ok());
    EXPECT_FALSE(check_origin("").ok());
    EXPECT_TRUE(check_origin("my_lab2").ok());
    EXPECT_FALSE(check_facts({"abc123", "", "", ""}).ok());
    EXPECT_FALSE(check_facts({"", "git://example.org/linux.git", "", ""}).ok());
    TempDir dir;
    const std::string not_results = dir.file("x.json", R"({"hello": 1})");
    auto refused = model_of({{not_results}, {}, "", {}});
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message().find("not an initbench results document"), std::string::npos);
    const std::string side = write_side(dir, "a", runs_at(200, "a", 1));
    auto no_side = model_of({{side}, {}, dir / "missing.json", {}});
    ASSERT_FALSE(no_side.ok());
    EXPECT_NE(no_side.error().message().find("names no side"), std::string::npos) << no_side.error().message();
}

TEST(Export, WhatTheUserAddsGoesOnTheCandidatesCheckout) {
    TempDir dir;
    const std::string b = write_side(dir, "base", runs_at(200, "a", 1)),
                      n = write_side(dir, "next", runs_at(200, "b", 1, "bb"));
    ModelOptions o;
    o.facts.push_back({"", {std::string(40, 'a'), "https://git.kernel.org/linux.git", "master", "mainline"}});
    auto model = model_of({{b, n}, {"base", "next"}, "", {}}, o);
    ASSERT_TRUE(model.ok()) << model.error().message();
    auto doc = kcidb_of(model.value());
    ASSERT_EQ(doc["checkouts"].size(), 2u);
    EXPECT_FALSE(doc["checkouts"][0].contains("git_commit_hash"));
    EXPECT_EQ(doc["checkouts"][1]["git_commit_hash"], std::string(40, 'a'));
    EXPECT_EQ(doc["checkouts"][1]["tree_name"], "mainline");
    o.facts = {{"nosuch", {}}};
    EXPECT_FALSE(model_of({{b, n}, {"base", "next"}, "", {}}, o).ok());
}

// An ab directory: its plan names the sides, its base is the baseline, and its last look's
// level is the one the verdicts are judged at.
TEST(Export, AnAbDirectoryIsItsSidesAgainstItsBase) {
    TempDir dir;
    std::filesystem::create_directories(dir.path() / "runs");
    auto write = [&](const std::string& label, const std::vector<Spec>& specs) {
        for (size_t i = 0; i < specs.size(); i++) {
            char name[32];
            std::snprintf(name, sizeof name, "runs/%s-%03zu.json", label.c_str(), i + 1);
            dir.file(name, make_doc(specs[i]).dump());
        }
    };
    write("A", runs_at(200, "a"));
    write("B", runs_at(140, "b", 5, "bb"));
    dir.file("ab.json", nlohmann::json{{"initbench_ab", 1},
                                       {"sides", {{{"label", "A"}}, {{"label", "B"}}}},
                                       {"method", "auto"},
                                       {"confidence", 0.95},
                                       {"min_effect_pct", 5}}
                            .dump());
    dir.file("comparison.json", nlohmann::json{{"ab", {{"look_alpha", 0.01}, {"look", 2}, {"looks", 5}}}}.dump());
    auto model = model_of({{dir.path().string()}, {}, "", {}});
    ASSERT_TRUE(model.ok()) << model.error().message();
    auto tests = tests_at(kcidb_of(model.value()), "initbench.compare.fork.ops_per_s");
    ASSERT_EQ(tests.size(), 1u);
    EXPECT_EQ(tests[0]["misc"]["baseline"], "A");
    EXPECT_EQ(tests[0]["misc"]["confidence"], 0.99);
    EXPECT_EQ(tests[0]["misc"]["look"], "2 of 5");
    EXPECT_EQ(tests[0]["status"], "FAIL");
}

} // namespace
} // namespace initbench::exporting
