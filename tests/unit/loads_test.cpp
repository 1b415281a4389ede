// Unit tests of the loads and their runner, compiled natively: the kernel-text parsers,
// the parameters a phase resolves from the configuration, and every load run briefly in
// its own process group (no cgroup), then stopped with nothing left behind; external loads'
// placeholders, clients lists, metrics and keys, and a program run as a load's worker.
#include "common/config.h"
#include "common/external_load.h"
#include "load_catalog.h"
#include "payload/core/external.h"
#include "payload/core/leftover_tasks.h"
#include "payload/core/load_group.h"
#include "sys/procfs.h"
#include "payload/core/load.h"
#include "run_load.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
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

std::string refusal(const std::string& param) {
    ConfigResult r = parse_config(param, nullptr);
    return r.errors.empty() ? "" : r.errors[0].reason;
}

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
    EXPECT_NE(refusal("initbench.tcp.clients=1,0"), "");
    EXPECT_NE(refusal("initbench.tcp.clients=2000"), "");
    EXPECT_NE(refusal("initbench.pipe.groups=x"), "");
    EXPECT_NE(refusal("initbench.load.nice=-21"), "");
    EXPECT_NE(refusal("initbench.load.nice=20"), "");
    EXPECT_NE(refusal("initbench.load.nice=+1"), "");
    EXPECT_NE(refusal("initbench.load.cpus=3-1"), "");
    EXPECT_NE(refusal("initbench.pipe.mode=fifo"), "");
    EXPECT_NE(refusal("initbench.sleep.interval=0"), "");
    EXPECT_NE(refusal("initbench.pipe.fds=257"), "");
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
unsigned cpus_online_from_sysfs() {
    std::ifstream in("/sys/devices/system/cpu/online");
    std::string list;
    std::getline(in, list);
    unsigned n = 0;
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
        const auto dash = item.find('-');
        n += dash == std::string::npos ? 1 : std::stoul(item.substr(dash + 1)) - std::stoul(item) + 1;
    }
    return n;
}

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
                                   std::any_of(decl->shown.begin(), decl->shown.end(),
                                               [&](const ShownParam& d) { return d.name == name; });
                EXPECT_TRUE(known) << name << " = " << value.dump();
            }
        }
    }
    LoadParams p;
    show(p, *find_load_decl("thread"), {{"threads", 4}, {"mode", "sometimes"}, {"stack_kb", 8}});
    EXPECT_EQ(p.shown, (nlohmann::json{{"threads", 4}, {"undeclared", {{"mode", "sometimes"}, {"stack_kb", 8}}}}));
}

// ---- the profiles in the image ----------------------------------------------------------

std::optional<std::string> shipped_profile(std::string_view name) {
    auto text = read_file(std::string(INITBENCH_SOURCE_DIR) + "/init/profiles/" +
                          std::string(name) + ".conf");
    return text ? std::optional<std::string>(text.value()) : std::nullopt;
}

TEST(Profiles, MmCid) {
    ConfigResult r = parse_config("initbench.profile=mm_cid initbench.duration=2", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.list("phases"), (std::vector<std::string>{"none", "cpu", "fork", "thread"}));
    EXPECT_EQ(r.config.uint("machine.cpus"), 128u);
    EXPECT_EQ(r.config.seconds("rest"), 30.0);
    // $nproc workers: one per CPU of the machine it runs on.
    LoadParams thread = resolve_params(*find_load("thread"), r.config, 0);
    EXPECT_EQ(thread.workers, cpus_online_from_sysfs());
    EXPECT_EQ(params_json(thread)["threads"], 4);
    EXPECT_EQ(params_json(thread)["mode"], "batch"); // as stress-ng --pthread-max makes them
    EXPECT_EQ(params_json(resolve_params(*find_load("cpu"), r.config, 0))["cpu_load_pct"], 80);
    EXPECT_EQ(r.config.seconds("duration"), 2.0);
}

TEST(Profiles, PageFrag) {
    ConfigResult r = parse_config("initbench.profile=page_frag", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    // perf stat -r 200 insmod ./page_frag_test.ko test_push_cpu=16 test_pop_cpu=17 ...
    EXPECT_EQ(r.config.str("module"), "/payload/page_frag_test.ko");
    EXPECT_EQ(r.config.str("module.params"),
              "test_push_cpu=16 test_pop_cpu=17 test_alloc_len=12 nr_test=51200000");
    EXPECT_EQ(r.config.str("cmd"), ""); // one finit_module per repeat, not BusyBox's insmod
    EXPECT_EQ(r.config.uint("repeat"), 200u);
    EXPECT_EQ(r.config.list("perf"), std::vector<std::string>{"default"});
    EXPECT_EQ(r.config.str("pin"), ""); // the module binds its own kthreads
    // Its kthreads are bound to CPUs 16 and 17: the machine needs 18.
    EXPECT_GE(r.config.uint("machine.cpus"), 18u);
}

// The seed: an 8-CPU VM, 15 000 forked processes that each call getpgid() and sleep, the
// storage churned from the system call's entry, the grace-period span and kthread ticks.
TEST(Profiles, RcuTasksTrace) {
    ConfigResult r = parse_config("initbench.profile=rcu_tasks_trace", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.uint("machine.cpus"), 8u);
    LoadParams sleep = resolve_params(*find_load("sleep"), r.config, 0);
    EXPECT_EQ(params_json(sleep)["sleepers"], 15000);
    EXPECT_EQ(params_json(sleep)["interval_s"], 4.0); // not the seed's 1.5 s mean: see the profile
    EXPECT_EQ(r.config.str("sleep.mode"), "process");
    EXPECT_EQ(r.config.str("sleep.syscall"), "getpgid");
    EXPECT_EQ(r.config.str("task_storage_churn.on"), "syscall:getpgid");
    EXPECT_EQ(r.config.str("span"), "rcu_tasks_trace_pregp_step:rcu_tasks_trace_postgp");
    EXPECT_EQ(r.config.list("kthread"), std::vector<std::string>{"rcu_tasks_trace*"});
}

TEST(Profiles, SisTbench) {
    ConfigResult r = parse_config("initbench.profile=sis_tbench", shipped_profile);
    ASSERT_TRUE(r.ok()) << r.errors[0].describe();
    EXPECT_EQ(r.config.list("phases"), std::vector<std::string>{"tcp"});
    // 1, doubling, up to twice the CPUs of the machine it runs on (here: this host's).
    std::vector<unsigned> expected;
    for (unsigned n = 1; n < 2 * cpus_online_from_sysfs(); n *= 2)
        expected.push_back(n);
    expected.push_back(2 * cpus_online_from_sysfs());
    EXPECT_EQ(sweep_values(*find_load("tcp"), r.config), expected);
    EXPECT_EQ(r.config.uint("machine.cpus"), 8u);
    EXPECT_EQ(r.config.str("machine.topology"), "1:4:2");
    EXPECT_EQ(r.config.uint("rounds"), 5u);
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

// ---- external loads (load.NAME) ---------------------------------------------------------

TEST(ExternalLoad, Substitutions) {
    const ExternalValues v{"12.5", 4, 8, 2};
    EXPECT_EQ(substitute("stress-ng --fork {workers} -t {duration}", v), "stress-ng --fork 4 -t 12.5");
    EXPECT_EQ(substitute("tbench -t {duration} {clients} {clients} {cpus}", v), "tbench -t 12.5 8 8 2");
    // A shell's ${x}, awk's braces with a space and unknown words are left as written.
    EXPECT_EQ(substitute("sh -c 'echo ${workers} {print $1} {}'", v), "sh -c 'echo ${workers} {print $1} {}'");
    EXPECT_EQ(check_placeholders("x {duration} {cpus} ${HOME}"), "");
    EXPECT_NE(check_placeholders("x {worker}").find("unknown placeholder {worker}"), std::string::npos);
    EXPECT_TRUE(uses_placeholder("a {clients}", "clients"));
    EXPECT_FALSE(uses_placeholder("a ${clients}", "clients"));
}

TEST(ExternalLoad, ClientsRelativeToCpus) {
    std::string why;
    auto counts = [&](std::vector<std::string> items, unsigned cpus) {
        why.clear();
        return expand_counts(items, cpus, why).value_or(std::vector<unsigned>{});
    };
    EXPECT_EQ(counts({"1", "2", "cpus", "2*cpus"}, 4), (std::vector<unsigned>{1, 2, 4, 8}));
    // Repeats are dropped: on one CPU 1,2,cpus,2*cpus is 1,2.
    EXPECT_EQ(counts({"1", "2", "cpus", "2*cpus"}, 1), (std::vector<unsigned>{1, 2}));
    EXPECT_EQ(counts({"cpus/2", "cpus/4"}, 2), (std::vector<unsigned>{1})); // at least 1
    EXPECT_EQ(counts({"1", "...", "2*cpus"}, 8), (std::vector<unsigned>{1, 2, 4, 8, 16}));
    EXPECT_EQ(counts({"1", "...", "2*cpus"}, 3), (std::vector<unsigned>{1, 2, 4, 6}));
    EXPECT_EQ(counts({"3", "...", "8"}, 1), (std::vector<unsigned>{3, 6, 8}));
    EXPECT_TRUE(counts({"...", "4"}, 2).empty());
    EXPECT_NE(why, "");
    EXPECT_TRUE(counts({"4*cpus"}, 512).empty()); // 2048 > 1024
    EXPECT_NE(why.find("from 1 to 1024"), std::string::npos);
    EXPECT_EQ(check_count_item("2*cpus"), "");
    EXPECT_EQ(check_count_item("..."), "");
    EXPECT_NE(check_count_item("cpus*2"), "");
    EXPECT_NE(check_count_item("0"), "");
    EXPECT_NE(check_count_item("3*cpus"), ""); // 1536 on the largest machine
}

TEST(ExternalLoad, MetricFromTheOutput) {
    // stress-ng 0.15's --metrics-brief line, and tbench's last line.
    const std::string stress =
        "stress-ng: metrc: [7] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\n"
        "stress-ng: metrc: [7]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\n"
        "stress-ng: metrc: [7] fork                119      2.01      0.05      1.20        59.25         95.20\n";
    std::string why;
    EXPECT_DOUBLE_EQ(find_metric(stress, "fork +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)", why).value_or(-1), 59.25);
    const std::string tbench = "   1     12  3.10 MB/sec  warmup   1 sec\n   1     40  4.50 MB/sec  execute   2 sec\n"
                               "Throughput 4.61223 MB/sec  1 clients  1 procs  max_latency=20.1 ms\n";
    EXPECT_DOUBLE_EQ(find_metric(tbench, "Throughput ([0-9.]+) MB/sec", why).value_or(-1), 4.61223);
    // The last match wins: progress lines come before the result.
    EXPECT_DOUBLE_EQ(find_metric(tbench, "([0-9.]+) MB/sec", why).value_or(-1), 4.61223);
    EXPECT_FALSE(find_metric(tbench, "Latency ([0-9.]+)", why));
    EXPECT_NE(why.find("no match"), std::string::npos);
    EXPECT_FALSE(find_metric("rate: fast\n", "rate: ([a-z]+)", why));
    EXPECT_NE(why.find("not a non-negative number"), std::string::npos);
    EXPECT_FALSE(find_metric("rate: -3\n", "rate: (-?[0-9]+)", why));
    EXPECT_EQ(check_metric_regex("a ([0-9]+)"), "");
    EXPECT_NE(check_metric_regex("a [0-9]+").find("exactly one capture group"), std::string::npos);
    EXPECT_NE(check_metric_regex("(a)(b)").find("(it has 2)"), std::string::npos);
    EXPECT_NE(check_metric_regex("a ([0-9]+").find("not a POSIX"), std::string::npos);
    // Perl's class escapes are refused with the POSIX class to write (musl matched nothing
    // with them); escaped special characters and bracket classes pass.
    EXPECT_EQ(check_metric_regex("rate\\s+(\\d+)"), "'\\s' is not POSIX ERE: write [[:space:]]");
    EXPECT_EQ(check_metric_regex("rate ([\\d.]+)"),
              "'\\d' in brackets is a backslash and 'd' in POSIX ERE; for the class write [0-9] "
              "outside brackets, or its [:class:] inside");
    EXPECT_EQ(check_metric_regex("\\bx ([0-9]+)"),
              "'\\b' is not POSIX ERE: a backslash escapes only . [ ] \\ ( ) * + ? { } | ^ $");
    EXPECT_EQ(check_metric_regex("\\(([0-9.]+)\\) \\$[[:space:]]"), "");
    EXPECT_EQ(check_metric_regex("x ([]\\[:digit:].]+)"), ""); // ']' first, a backslash member
    EXPECT_EQ(check_metric_regex("x ([^]0-9]+)"), "");
}

TEST(ExternalLoad, ListeningPortFromProcNetTcp) {
    const std::string tcp =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
        "   0: 00000000:1B5B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1\n"
        "   1: 0100007F:A1B2 0100007F:1B5B 01 00000000:00000000 00:00000000 00000000     0        0 2\n";
    EXPECT_TRUE(tcp_listening(tcp, 7003));
    EXPECT_FALSE(tcp_listening(tcp, 0xA1B2)); // connected, not listening
    EXPECT_FALSE(tcp_listening(tcp, 80));
    EXPECT_TRUE(tcp_listening("   0: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A\n", 80));
}

TEST(ExternalLoad, OutputTailStartsAtALine) {
    EXPECT_EQ(output_tail("short", 10), "short");
    EXPECT_EQ(output_tail("line one\nline two\n", 12), "line two\n");
    EXPECT_EQ(output_tail("0123456789", 4), "6789");
}

TEST(ExternalLoad, KeysAndTheirRefusals) {
    EXPECT_EQ(refusal("initbench.load.stress=\"stress-ng --fork {workers} -t {duration}\" "
                      "initbench.load.stress.metric=\"fork +[0-9]+ +([0-9.]+)\" initbench.load.stress.unit=ops/s "
                      "initbench.load.stress.better=lower initbench.load.stress.agg=amean "
                      "initbench.load.srv=\"client {clients}\" initbench.load.srv.clients=1,...,2*cpus "
                      "initbench.load.srv.setup=server initbench.load.srv.ready=listening "
                      "initbench.load.srv.ready_timeout=2 initbench.phases=none,stress,srv,stress+fork"),
              "");
    EXPECT_EQ(refusal("initbench.load.fork=true"), "'fork' is a built-in load's name");
    EXPECT_EQ(refusal("initbench.load.none=true"), "'none' is a built-in load's name");
    EXPECT_EQ(refusal("initbench.load.cpus.setup=x"), "load.cpus is a key of its own");
    EXPECT_NE(refusal("initbench.load.Big=x").find("a-z, 0-9 and '_'"), std::string::npos);
    EXPECT_EQ(refusal("initbench.load.x=\"a {worker}\"").substr(0, 27), "unknown placeholder {worker");
    EXPECT_EQ(refusal("initbench.load.x=\"a 'b\""), "unbalanced ' quote");
    EXPECT_EQ(refusal("initbench.load.x.metrc=a"), "unknown key (did you mean 'initbench.load.x.metric'?)");
    EXPECT_EQ(refusal("initbench.load.x.setup=srv"), "set without load.x (the load's program)");
    EXPECT_EQ(refusal("initbench.load.x=a initbench.load.x.ready=up"), "needs load.x.setup: the program it waits for");
    EXPECT_EQ(refusal("initbench.load.x=a initbench.load.x.ready_port=80"),
              "needs load.x.setup: the program it waits for");
    EXPECT_NE(refusal("initbench.load.x=a initbench.load.x.setup=s initbench.load.x.ready_port=70000"), "");
    EXPECT_EQ(refusal("initbench.load.x=a initbench.load.x.metric=(1)"), "needs load.x.unit: the metric's unit");
    EXPECT_EQ(refusal("initbench.load.x=a initbench.load.x.unit=s"), "needs load.x.metric");
    EXPECT_EQ(refusal("initbench.load.x=a initbench.load.x.metric=a"),
              "must have exactly one capture group (it has 0)");
    EXPECT_EQ(refusal("initbench.load.x=\"a {clients}\""), "uses {clients} but load.x.clients is not set");
    EXPECT_EQ(refusal("initbench.load.x=a initbench.load.x.clients=2"),
              "the program has no {clients}: every phase would be the same");
    EXPECT_EQ(refusal("initbench.load.x=\"a {clients}\" initbench.load.x.clients=...,4"),
              "'...' must stand between two counts");
    EXPECT_EQ(refusal("initbench.load.x=\"a {clients}\" initbench.load.x.clients=0"),
              "0: '0' is 0 here: a count must be from 1 to 1024");
    EXPECT_EQ(refusal("initbench.load.x=a initbench.load.x.better=more"), "must be one of: higher, lower");
}

TEST(ExternalLoad, HeaderShowsEveryFieldOfADefinedLoad) {
    const Config c = config_of("initbench.load.x=\"a -t {duration}\"");
    const auto values = c.to_json()["values"];
    EXPECT_EQ(values["load.x"], "a -t {duration}");
    EXPECT_EQ(values["load.x.better"], "higher"); // a default, shown because load.x is defined
    EXPECT_EQ(c.to_json()["sources"]["load.x.better"], "default");
    EXPECT_FALSE(values.contains("load.*"));
    EXPECT_EQ(c.family_names("load"), std::vector<std::string>{"x"});
}

// A load is its own files: every payload/X/X_load.h is in the registry (its X_load) and in
// the host's view (the built-in names, the key table), in the same order, with no list by hand.
TEST(LoadCatalog, GathersEveryLoadsOwnDeclaration) {
    // A load is a folder payload/X/ holding X_load.h; core/ is the framework.
    std::vector<std::string> headers;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(INITBENCH_SOURCE_DIR) + "/payload"))
        if (const std::string x = entry.path().filename().string();
            entry.is_directory() && std::filesystem::exists(entry.path() / (x + "_load.h")))
            headers.push_back(x + "_load.h");
    std::sort(headers.begin(), headers.end());
    ASSERT_GE(headers.size(), 8u);
    ASSERT_EQ(load_registry().size(), headers.size());
    std::vector<std::string_view> names;
    for (size_t i = 0; i < headers.size(); i++) {
        const LoadSpec& load = *load_registry()[i];
        EXPECT_EQ(std::string(load.name()) + "_load.h", headers[i]);
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

TEST(ExternalLoad, PhasesNameItAndItsSweepMakesPhases) {
    Config c = config_of("initbench.load.ext=\"/bin/sh -c 'echo {clients} {workers} {duration}'\" "
                         "initbench.load.ext.clients=1,cpus initbench.duration=2 initbench.warmup=1 "
                         "initbench.workers=3");
    define_external_loads(c);
    const LoadSpec* ext = find_load("ext");
    ASSERT_NE(ext, nullptr);
    EXPECT_EQ(ext->sweep(), "load.ext.clients");
    std::string why;
    EXPECT_EQ(phase_loads("ext+fork", why).size(), 0u); // a swept load runs alone
    const unsigned cpus = cpus_online_from_sysfs();
    const std::vector<unsigned> expected = cpus == 1 ? std::vector<unsigned>{1} : std::vector<unsigned>{1, cpus};
    EXPECT_EQ(sweep_values(*ext, c), expected);
    LoadParams p = resolve_params(*ext, c, 7);
    EXPECT_EQ(p.workers, 1u); // one worker: the program
    ASSERT_NE(external_params_of(p), nullptr);
    EXPECT_EQ(external_params_of(p)->argv, (std::vector<std::string>{"/bin/sh", "-c", "echo 7 3 3"}));
    EXPECT_EQ(params_json(p), (nlohmann::json{{"workers", 3}}));
    define_external_loads(config_of(""));
    EXPECT_EQ(find_load("ext"), nullptr);
}

// The worker becomes the program; its exit status and output are there for the record.
TEST(ExternalLoad, ProgramRunsAsTheWorkerAndItsStatusIsKept) {
    const std::string name = "ut" + std::to_string(::getpid());
    Config c = config_of("initbench.load." + name + "=\"/bin/sh -c 'echo ran {workers}; exit 3'\" "
                         "initbench.workers=2");
    define_external_loads(c);
    const LoadSpec& spec = *find_load(name);
    LoadParams p = resolve_params(spec, c, 0);
    auto started = LoadGroup::start(spec, p, {});
    ASSERT_TRUE(started.ok());
    auto& group = *started.value();
    EXPECT_TRUE(group.wait_exit(monotonic_seconds() + 20));
    ASSERT_TRUE(group.exit_status(0));
    EXPECT_EQ(describe_exit(*group.exit_status(0)), "exited with status 3");
    const StopReport stopped = group.stop();
    EXPECT_EQ(stopped.left, 0u);
    EXPECT_EQ(stopped.reaped, 1u); // reaped by wait_exit, before stop: still counted
    EXPECT_EQ(read_file(external_output_path(name)).value_or(""), "ran 2\n");
    ::unlink(external_output_path(name).c_str());
    define_external_loads(config_of(""));
}

} // namespace
} // namespace initbench
