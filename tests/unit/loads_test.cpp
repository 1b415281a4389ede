// Unit tests of the loads and their runner, compiled natively: the kernel-text parsers,
// the parameters a phase resolves from the configuration, and every load run briefly in
// its own process group (no cgroup), then stopped with nothing left behind. External loads
// are external_load_test.cpp, the shipped profiles profiles_test.cpp.
#include "common/config.h"
#include "common/external_load.h"
#include "common/text.h"
#include "load_catalog.h"
#include "payload/core/external.h"
#include "payload/core/leftover_tasks.h"
#include "payload/core/load.h"
#include "payload/core/load_group.h"
#include "run_load.h"
#include "sys/procfs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include "tests/unit/unit_folders.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

using testing_loads::config_of;
using testing_loads::start_load;
using testing_loads::wait_for_ops;
using testing_loads::refusal;
using testing_loads::cpus_online_from_sysfs;

// ---- the kernel's text ------------------------------------------------------------------

TEST(KeyedValue, CgroupAndProcFiles) {
    const std::string cpu_stat = "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n";
    EXPECT_EQ(keyed_value(cpu_stat, "user_usec"), 1000u);
    EXPECT_EQ(keyed_value(cpu_stat, "system_usec"), 500u);
    EXPECT_EQ(keyed_value(cpu_stat, "nr_periods"), std::nullopt);
    EXPECT_EQ(keyed_value("low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n", "oom_kill"), 2u);
    EXPECT_EQ(keyed_value("cpu  1 2 3\nctxt 99\nbtime 1\nprocesses 4242\n", "processes"), 4242u);
    EXPECT_EQ(keyed_value("MemTotal:  2000 kB\nMemAvailable:   1500 kB\n", "MemAvailable:"), 1500u);
    // A prefix is not the key, and a value that is not a number is none.
    EXPECT_EQ(keyed_value("oom_kill_x 5\n", "oom_kill"), std::nullopt);
    EXPECT_EQ(keyed_value("max many\n", "max"), std::nullopt);
    EXPECT_EQ(keyed_value("", "max"), std::nullopt);
}

TEST(DescribeLeftovers, EachStateWithWhereItWaits) {
    LeftoverTasks left{.count = 15003, .states = {{'S', 14990}, {'Z', 13}},
                       .waits_in = {{'S', "do_exit"}}};
    EXPECT_EQ(describe_leftovers(left), "14990 sleeping (S) in do_exit, 13 zombies (Z)");
    left = {.count = 2, .states = {{'D', 1}, {'R', 1}}, .waits_in = {{'D', "rcu_tasks_wait"}}};
    EXPECT_EQ(describe_leftovers(left),
              "1 in uninterruptible sleep (D) in rcu_tasks_wait, 1 running (R)");
    EXPECT_EQ(describe_leftovers({}), "");
}

TEST(DescribeExit, SignalsStatusesAndSetUp) {
    int status = 0;
    pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(128 + 9);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_EQ(describe_exit(status),
              "exited with status 137: one of its tasks was killed by signal 9");
    pid = ::fork();
    if (pid == 0) {
        ::pause();
        ::_exit(0);
    }
    ::kill(pid, SIGKILL);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_EQ(describe_exit(status), "killed by signal 9");
}

// ---- keys and parameters ----------------------------------------------------------------

TEST(LoadKeys, RefusedValues) {
    for (const char* bad :
         {"initbench.tcp.clients=1,0", "initbench.tcp.clients=2000", "initbench.pipe.groups=x",
          "initbench.pipe.groups=4,2000", "initbench.load.nice=-21", "initbench.load.nice=20",
          "initbench.load.nice=+1", "initbench.load.cpus=3-1", "initbench.pipe.mode=fifo",
          "initbench.sleep.interval=0", "initbench.pipe.fds=257"})
        EXPECT_NE(refusal(bad), "") << bad;
    EXPECT_EQ(refusal("initbench.load.nice=-20 initbench.load.cpus=0,2-3 initbench.churn=0.25"),
              "");
}

TEST(LoadRegistry, EveryLoadDescribesItself) {
    std::set<std::string_view> names;
    for (const LoadSpec* l : load_registry()) {
        EXPECT_TRUE(names.insert(l->name()).second) << l->name();
        EXPECT_FALSE(l->decl.help.empty()) << l->name();
        EXPECT_FALSE(l->op_unit().empty()) << l->name();
        EXPECT_TRUE(l->default_workers && l->unsupported && l->tasks && l->work) << l->name();
        if (!l->sweep().empty()) {
            EXPECT_NE(find_key(l->sweep()), nullptr) << l->sweep();
        }
        EXPECT_EQ(find_load(l->name()), l);
    }
    EXPECT_TRUE(names.contains("cpu") && names.contains("sleep")); // the registry's, not empty
    EXPECT_EQ(find_load("bogus"), nullptr);
}

// A load is its own files: every payload/X/load.json is in the registry (its X_load) and in
// the host's view (the built-in names, the key table), in the same order, with no list by hand.
TEST(LoadCatalog, GathersEveryLoadsOwnDeclaration) {
    // A load is a folder payload/X/ holding load.json; core/ is the framework.
    const auto folders = unit_folders(std::string(INITBENCH_SOURCE_DIR) + "/payload", "load.json");
    ASSERT_GE(folders.size(), 8u);
    ASSERT_EQ(load_registry().size(), folders.size());
    std::vector<std::string_view> names;
    for (size_t i = 0; i < folders.size(); i++) {
        const LoadSpec& load = *load_registry()[i];
        EXPECT_EQ(load.name(), folders[i]);
        names.push_back(load.name());
        // Its keys are its own (NAME.*), and the key table has each.
        for (const KeySpec& key : load_catalog::kDecls[i]->keys) {
            EXPECT_TRUE(key.name.starts_with(std::string(load.name()) + ".")) << key.name;
            EXPECT_NE(find_key(key.name), nullptr) << key.name;
        }
        if (!load.sweep().empty()) {
            EXPECT_NE(find_key(load.sweep()), nullptr) << load.sweep();
        }
    }
    EXPECT_EQ(names, builtin_load_names()); // what the host refuses as an external load's name
}

TEST(PhaseLoads, OneLoadOrLoadsJoinedByPlus) {
    std::string why;
    EXPECT_EQ(phase_loads("fork", why), (std::vector<const LoadSpec*>{find_load("fork")}));
    EXPECT_EQ(phase_loads("sleep+syscall", why),
              (std::vector<const LoadSpec*>{find_load("sleep"), find_load("syscall")}));
    EXPECT_EQ(phase_loads("fork+thread+cpu", why).size(), 3u);
    EXPECT_EQ(why, "");
}

TEST(PhaseLoads, RefusalsNameThePart) {
    auto refused = [](std::string_view name) {
        std::string why;
        EXPECT_TRUE(phase_loads(name, why).empty()) << name;
        return why;
    };
    // An unknown load lists the loads there are, built-in first.
    std::string loads;
    for (const auto* l : load_registry())
        loads += (loads.empty() ? "; loads: " : ", ") + std::string(l->name());
    EXPECT_NE(loads.find("cpu, "), std::string::npos) << loads;
    EXPECT_EQ(refused("bogus"), "unknown load 'bogus'" + loads);
    EXPECT_EQ(refused("sleep+bogus"), "unknown load 'bogus' in 'sleep+bogus'" + loads);
    EXPECT_EQ(refused("sleep+"), "unknown load '' in 'sleep+'" + loads);
    EXPECT_EQ(refused("none+fork"), "unknown load 'none' in 'none+fork'" + loads);
    EXPECT_EQ(refused("fork+fork"), "load 'fork' twice in 'fork+fork'");
    EXPECT_EQ(refused("tcp+sleep"), "load 'tcp' in 'tcp+sleep' has a sweep key (tcp.clients): it "
                                    "runs in a phase of its own");
    EXPECT_NE(refused("sleep+pipe").find("pipe.groups"), std::string::npos);
}

// The kernel's own list of online CPUs ("0-1,4"), not the code under test's sysconf().
TEST(LoadParams, WorkersFromTheKeyOrOnePerCpu) {
    const LoadSpec& cpu = *find_load("cpu");
    EXPECT_EQ(resolve_params(cpu, config_of(""), 0).workers, cpus_online_from_sysfs());
    EXPECT_EQ(resolve_params(cpu, config_of("initbench.workers=128"), 0).workers, 128u);
    EXPECT_EQ(sweep_values(cpu, config_of("")), std::vector<unsigned>{0});
}

TEST(LoadParams, SweepMakesOnePhasePerValue) {
    const LoadSpec& tcp = *find_load("tcp");
    Config c =
        config_of("initbench.tcp.clients=1,2,64 initbench.tcp.msg_size=10 initbench.workers=7");
    EXPECT_EQ(sweep_values(tcp, c), (std::vector<unsigned>{1, 2, 64}));
    LoadParams p = resolve_params(tcp, c, 64);
    EXPECT_EQ(p.workers, 64u); // the sweep's value, not `workers`
    EXPECT_EQ(tcp.tasks(p), 128u);
    EXPECT_EQ(tcp.bytes_per_op(p), 20u);
    EXPECT_EQ(params_json(p), (nlohmann::json{{"workers", 64}, {"msg_size", 10}}));
}

TEST(LoadParams, EachLoadReadsItsOwnKeys) {
    Config c = config_of("initbench.workers=128 initbench.thread.threads=32 initbench.pipe.fds=5 "
                         "initbench.pipe.mode=socket initbench.pipe.groups=3 "
                         "initbench.sleep.tasks=15000 initbench.sleep.interval=0.5");
    LoadParams thread = resolve_params(*find_load("thread"), c, 0);
    EXPECT_EQ(params_json(thread), (nlohmann::json{{"workers", 128}, {"threads", 32}, {"mode", "batch"}}));
    EXPECT_EQ(find_load("thread")->tasks(thread), 128u * 33);
    LoadParams pipe = resolve_params(*find_load("pipe"), c, 3);
    EXPECT_EQ(pipe.workers, 3u);
    // msg_size: the default, as hackbench's.
    EXPECT_EQ(params_json(pipe),
              (nlohmann::json{{"workers", 3}, {"fds", 5}, {"msg_size", 100}, {"mode", "socket"}}));
    EXPECT_EQ(find_load("pipe")->tasks(pipe), 3u * 11);
    LoadParams sleep = resolve_params(*find_load("sleep"), c, 0);
    // Another load's keys (thread.threads) do not leak in.
    EXPECT_EQ(params_json(sleep), (nlohmann::json{{"workers", 128}, {"sleepers", 15000}, {"interval_s", 0.5},
                                                  {"mode", "thread"}}));
    EXPECT_EQ(find_load("sleep")->tasks(sleep), 128u + 15000);
}

// Every load shows only what its declaration names (the results schema's load_params is
// generated from them), in each of its branches; anything else is set apart as undeclared.
TEST(LoadParams, ShownAsDeclared) {
    for (const char* line : {"", "initbench.sleep.random=3 initbench.sleep.syscall=getpgid initbench.pipe.mode=socket "
                                 "initbench.thread.mode=continuous initbench.sleep.mode=process"}) {
        const Config c = config_of(line);
        for (const LoadSpec* load : load_registry()) {
            SCOPED_TRACE(std::string(load->name()) + " with '" + line + "'");
            const LoadDecl* decl = find_load_decl(load->name());
            ASSERT_TRUE(decl);
            const nlohmann::json shown = params_json(resolve_params(*load, c, 2));
            for (const auto& [name, value] : shown.items()) {
                const bool known = name == "workers" ||
                                   std::any_of(decl->keys.begin(), decl->keys.end(),
                                               [&](const KeySpec& k) { return k.shown_as == name; });
                EXPECT_TRUE(known) << name << " = " << value.dump();
            }
        }
    }
    LoadParams p;
    show(p, *find_load_decl("thread"), {{"threads", 4}, {"mode", "sometimes"}, {"stack_kb", 8}});
    EXPECT_EQ(p.shown, (nlohmann::json{{"threads", 4}, {"undeclared", {{"mode", "sometimes"}, {"stack_kb", 8}}}}));
}

// The results schema's load_params (generated from the keys the loads show; the `schema`
// test checks the committed file is what the generator writes) takes every value each load's
// key allows, also where two loads show one name with other ranges (pipe's and tcp's
// msg_size), and a count's upper end is the widest key's.
TEST(LoadParams, SchemaTakesWhatEveryKeyAllows) {
    auto text = read_file(std::string(INITBENCH_SOURCE_DIR) + "/docs/schema/defs.schema.json");
    ASSERT_TRUE(text);
    const nlohmann::json params = nlohmann::json::parse(text.value())["$defs"]["load_params"]["properties"];
    std::map<std::string, uint64_t> widest;
    for (const LoadDecl* decl : load_catalog::kDecls)
        for (const KeySpec& key : decl->keys) {
            if (key.shown_as.empty())
                continue;
            const std::string name(key.shown_as);
            SCOPED_TRACE(std::string(decl->name) + ": " + name);
            const nlohmann::json& p = params[name];
            if (key.kind == Kind::enumeration) {
                for (std::string_view choice : split_on(key.choices, '|'))
                    EXPECT_NE(std::find(p["enum"].begin(), p["enum"].end(), std::string(choice)), p["enum"].end())
                        << choice;
            } else if (key.kind == Kind::seconds) {
                EXPECT_LE(p["minimum"].get<double>(), key.min);
                EXPECT_GE(p["maximum"].get<double>(), key.max);
            } else {
                EXPECT_EQ(p["type"], "integer");
                EXPECT_LE(p["minimum"].get<uint64_t>(), std::max<uint64_t>(key.umin, 1));
                EXPECT_GE(p["maximum"].get<uint64_t>(), key.umax);
                widest[name] = std::max(widest[name], key.umax);
            }
        }
    for (const auto& [name, max] : widest)
        EXPECT_EQ(params[name]["maximum"], max) << name;
    EXPECT_EQ(params["msg_size"]["maximum"], 1u << 20); // tcp's, wider than pipe's 65536
}

// ---- every load, run natively -----------------------------------------------------------

bool no_children_left() {
    int status;
    return ::waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD;
}

class EveryLoad : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryLoad, CountsAndLeavesNothingBehind) {
    if (auto why = find_load(GetParam())->unsupported(); !why.empty())
        GTEST_SKIP() << why;
    auto group = start_load(GetParam(), "initbench.workers=2 initbench.thread.threads=4 "
                                        "initbench.pipe.fds=2 initbench.sleep.tasks=20 "
                                        "initbench.sleep.interval=0.001");
    ASSERT_TRUE(group);
    std::vector<WorkerExit> exits;
    EXPECT_TRUE(group->wait_ready(monotonic_seconds() + 20, exits));
    EXPECT_TRUE(exits.empty());
    EXPECT_TRUE(wait_for_ops(*group, 3));
    EXPECT_EQ(group->failures(), 0u);
    const StopReport stopped = group->stop();
    EXPECT_GE(stopped.reaped, group->params().workers);
    EXPECT_EQ(stopped.left, 0u);
    EXPECT_TRUE(no_children_left());
    EXPECT_TRUE(group->collect_early_exits().empty());
}

// Every load of the registry, so that a new load is run by construction.
std::vector<std::string> registry_names() {
    std::vector<std::string> names;
    for (const LoadSpec* l : load_registry())
        names.emplace_back(l->name());
    return names;
}

INSTANTIATE_TEST_SUITE_P(Loads, EveryLoad, ::testing::ValuesIn(registry_names()),
                         [](const auto& info) { return info.param; });

// The continuous thread mode never has more than thread.threads threads alive per worker.
TEST(ThreadLoad, ContinuousKeepsAtMostItsThreadsAlive) {
    auto group = start_load("thread", "initbench.workers=1 initbench.thread.threads=3 "
                                      "initbench.thread.mode=continuous");
    ASSERT_TRUE(group);
    EXPECT_EQ(params_json(group->params())["mode"], "continuous");
    std::vector<WorkerExit> exits;
    ASSERT_TRUE(group->wait_ready(monotonic_seconds() + 20, exits));
    // The kernel's own count of the worker's threads, sampled while it cycles them.
    const std::string status = "/proc/" + std::to_string(group->worker_pids().at(0)) + "/status";
    unsigned most = 0;
    for (int i = 0; i < 200; i++) {
        std::ifstream in(status);
        for (std::string line; std::getline(in, line);)
            if (line.rfind("Threads:", 0) == 0)
                most = std::max(most, static_cast<unsigned>(std::stoul(line.substr(8))));
    }
    EXPECT_GE(most, 1u);
    EXPECT_LE(most, 1u + 3u); // the worker itself and at most 3 threads
    ASSERT_TRUE(wait_for_ops(*group, 200));
    EXPECT_EQ(group->stop().left, 0u);
}

// mmap: every operation faults in each page of its mapping once. The kernel's own count of
// the workers' minor faults (getrusage of the reaped children) is at least the pages of the
// operations counted, and not many times more (a fault per page, not per byte).
TEST(MmapLoad, EachOperationFaultsInEveryPage) {
    rusage before{};
    ::getrusage(RUSAGE_CHILDREN, &before);
    auto group = start_load("mmap", "initbench.workers=1 initbench.mmap.size_kb=256");
    ASSERT_TRUE(group);
    EXPECT_EQ(params_json(group->params()), (nlohmann::json{{"workers", 1}, {"size_kb", 256}}));
    EXPECT_EQ(find_load("mmap")->bytes_per_op(group->params()), 256u * 1024);
    ASSERT_TRUE(wait_for_ops(*group, 50));
    EXPECT_EQ(group->stop().left, 0u);
    const uint64_t ops = group->total_ops();
    rusage after{};
    ::getrusage(RUSAGE_CHILDREN, &after);
    const uint64_t pages = 256 * 1024 / static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t faults = uint64_t(after.ru_minflt - before.ru_minflt);
    EXPECT_GE(faults, ops * pages) << ops << " operations";
    EXPECT_LE(faults, (ops + 2) * pages + 1000) << ops << " operations"; // the one cut short, the start
}

// sleep.random=2, the RCU seed's sleep(rand() % 2): each sleep is 0 or 1 s, whatever
// sleep.interval says (60 s here, which would give no wake-up at all). Half the sleeps are
// 0 s, so a sleeper wakes about twice a second: far from 0, and far from a loop that never
// sleeps.
TEST(SleepLoad, RandomWholeSecondsAsTheRcuSeed) {
    auto group = start_load("sleep", "initbench.workers=1 initbench.sleep.tasks=40 "
                                     "initbench.sleep.interval=60 initbench.sleep.random=2");
    ASSERT_TRUE(group);
    const nlohmann::json params = params_json(group->params());
    EXPECT_EQ(params["random_s"], 2);
    EXPECT_FALSE(params.contains("interval_s"));
    std::vector<WorkerExit> exits;
    ASSERT_TRUE(group->wait_ready(monotonic_seconds() + 20, exits));
    ASSERT_TRUE(wait_for_ops(*group, 40));
    const uint64_t before = group->total_ops();
    const double t0 = monotonic_seconds();
    ::usleep(2000000);
    const double rate = double(group->total_ops() - before) / (monotonic_seconds() - t0) / 40;
    EXPECT_GT(rate, 0.5); // wake-ups per sleeper per second; expected about 2
    EXPECT_LT(rate, 20.0);
    EXPECT_EQ(group->stop().left, 0u);
}

// fork.spin_us adds its time to every operation: ten operations take at least nine spins
// (the first counted may have been most of the way through its own), however fast forks are.
TEST(ForkLoad, SpinAddsItsTimeToEachOperation) {
    auto group = start_load("fork", "initbench.workers=1 initbench.fork.spin_us=20000");
    ASSERT_TRUE(group);
    EXPECT_EQ(params_json(group->params()), (nlohmann::json{{"workers", 1}, {"fork_spin_us", 20000}}));
    ASSERT_TRUE(wait_for_ops(*group, 1));
    const uint64_t first = group->total_ops();
    const double t0 = monotonic_seconds();
    ASSERT_TRUE(wait_for_ops(*group, first + 10));
    EXPECT_GE(monotonic_seconds() - t0, 9 * 0.020);
    EXPECT_EQ(group->stop().left, 0u);
    // Without the key, the record shows no spin.
    EXPECT_EQ(params_json(resolve_params(*find_load("fork"), config_of("initbench.workers=1"), 0)),
              (nlohmann::json{{"workers", 1}}));
}

// A worker that ends an operation every 1/178.6 s, as the fork load did under icount: two
// one-second windows opened at different points of an operation count 179 and 178 of them,
// 0.56 % apart, where their time gives the same rate to the nanosecond's rounding.
TEST(OpSpans, WholeOperationsOverTheTimeTheyTook) {
    const double op_s = 1 / 178.6;
    auto mark = [&](uint64_t ops) { return WorkerMark{.ops = ops, .last_op_ns = uint64_t(std::llround(ops * op_s * 1e9))}; };
    for (const auto& [first, last] : {std::pair{10u, 189u}, std::pair{11u, 189u}}) {
        const std::vector<WorkerMark> open{mark(first)}, close{mark(last)};
        EXPECT_NEAR(ops_per_second(open, close, 1.0), 178.6, 1e-4) << last - first << " operations";
    }
    // Two workers: each over its own span, summed. One without a start mark, or with no
    // operation inside the window, has the window's length.
    const std::vector<WorkerMark> open{{.ops = 5, .last_op_ns = 1'000'000'000}, {.ops = 0, .last_op_ns = 0},
                                       {.ops = 7, .last_op_ns = 3'000'000'000}};
    const std::vector<WorkerMark> close{{.ops = 25, .last_op_ns = 1'500'000'000}, {.ops = 30, .last_op_ns = 2'000'000'000},
                                        {.ops = 7, .last_op_ns = 3'000'000'000}};
    EXPECT_EQ(op_spans(open, close, 0.6), (std::vector<double>{0.5, 0.6, 0.6}));
    EXPECT_DOUBLE_EQ(ops_per_second(open, close, 0.6), 20 / 0.5 + 30 / 0.6);
}

// The worker stamps when it starts (before any operation ends) and at every operation's end,
// so that a window's span is measured in the worker, not where the window's edges fell.
TEST(LoadGroup, MarksWhenEachWorkersLastOperationEnded) {
    auto group = start_load("fork", "initbench.workers=1 initbench.fork.spin_us=100000");
    ASSERT_TRUE(group);
    std::vector<WorkerExit> exits;
    ASSERT_TRUE(group->wait_ready(monotonic_seconds() + 20, exits));
    const auto started = group->marks();
    const auto now_ns = [] { return uint64_t(monotonic_seconds() * 1e9); };
    ASSERT_EQ(started.size(), 1u);
    EXPECT_GT(started[0].last_op_ns, 0u) << "ready() marks the start";
    EXPECT_LE(started[0].last_op_ns, now_ns());
    ASSERT_TRUE(wait_for_ops(*group, started[0].ops + 3));
    const auto later = group->marks();
    const uint64_t read_ns = now_ns();
    // Three or more operations of at least 100 ms each ended since, the last before the read.
    EXPECT_GE(later[0].last_op_ns - started[0].last_op_ns, (later[0].ops - started[0].ops) * 99'000'000u);
    EXPECT_LE(later[0].last_op_ns, read_ns);
    EXPECT_EQ(group->stop().left, 0u);
}

TEST(LoadGroup, ChurnRespawnsAndCountingGoesOn) {
    auto group = start_load("fork", "initbench.workers=2");
    ASSERT_TRUE(group);
    ASSERT_TRUE(wait_for_ops(*group, 2));
    const uint64_t before = group->total_ops();
    ASSERT_TRUE(group->respawn().ok());
    EXPECT_EQ(group->respawns(), 1u);
    EXPECT_TRUE(wait_for_ops(*group, before + 2)); // the new workers count into the same slots
    EXPECT_EQ(group->stop().left, 0u);
    EXPECT_TRUE(no_children_left());
}

TEST(LoadGroup, AWorkerThatDiesIsReported) {
    auto group = start_load("cpu", "initbench.workers=2");
    ASSERT_TRUE(group);
    std::vector<WorkerExit> exits;
    ASSERT_TRUE(group->wait_ready(monotonic_seconds() + 20, exits));
    ASSERT_EQ(group->worker_pids().size(), 2u);
    const pid_t victim = group->worker_pids()[1];
    ::kill(victim, SIGKILL);
    std::vector<WorkerExit> died;
    const double deadline = monotonic_seconds() + 20;
    while (died.empty() && monotonic_seconds() < deadline) {
        died = group->collect_early_exits();
        ::usleep(10000);
    }
    ASSERT_EQ(died.size(), 1u);
    EXPECT_EQ(died[0].pid, victim);
    EXPECT_EQ(describe_exit(died[0].status), "killed by signal 9");
    EXPECT_EQ(group->stop().left, 0u);
}

} // namespace
} // namespace initbench
