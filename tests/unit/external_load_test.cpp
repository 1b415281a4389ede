// Unit tests of external loads (load.NAME): placeholders, clients lists, metrics from the
// output, keys and their refusals, the phases they make, and a program run as a load's
// worker with its status kept. Compiled natively; no QEMU.
#include "common/config.h"
#include "common/external_load.h"
#include "payload/core/external.h"
#include "payload/core/load.h"
#include "payload/core/load_group.h"
#include "run_load.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

using testing_loads::config_of;
using testing_loads::cpus_online_from_sysfs;
using testing_loads::refusal;
using testing_loads::start_load;
using testing_loads::wait_for_ops;

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
