"""Boot tests of the loads: Debian's 6.1 kernel under QEMU TCG with the initbench image.

Each class is one boot; its tests check what came out of it. Rates are only checked to be
nonzero: timing under TCG on a shared machine is far too noisy for more."""
import os
import subprocess
import unittest

import bootlib
from test_boot import assert_clean_end

# Every load of the registry (each payload/X/X_load.h), so that a new load is booted by
# construction, with its sweep key when it declares one.
_LISTED = [line.split() for line in subprocess.run(
    [os.environ.get("INITBENCH_LOADBENCH", str(bootlib.SOURCE / "build/payload/initbench-loadbench")), "--list"],
    check=True, capture_output=True, text=True).stdout.splitlines()]
LOADS = [row[0] for row in _LISTED]
SWEEP_KEYS = {row[0]: row[1] for row in _LISTED if len(row) > 1}
# A swept load has a phase per value of its key: two each, tcp's the widest it is checked at.
SWEEP_VALUES = {load: (1, 4) if load == "tcp" else (1, 2) for load in SWEEP_KEYS}
SWEEPS = {load: [f"{load}-{v}" for v in values] for load, values in SWEEP_VALUES.items()}


def load_phases(r):
    return [p for p in r.records("phase") if "load" in p]


class BootTest(unittest.TestCase):
    """Boots once for the class with PARAMS and ARGS; keeps the console log on failure."""
    PARAMS = ()
    ARGS = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-loads-")
        cls.r = bootlib.run(*cls.PARAMS, extra_args=cls.ARGS, workdir=cls.tmp.name)

    def assert_nothing_left(self):
        for p in self.r.records("phase"):
            with self.subTest(phase=p["phase"], round=p["round"]):
                self.assertEqual(p["tasks"]["leftover"], 0, "a task outlived its phase")
                if "load" in p:
                    self.assertEqual(p["tasks"]["running_after_stop"], 0)
                    # Workers that ended early were reaped too, and are counted.
                    self.assertGreaterEqual(p["tasks"]["reaped"], p["load"]["params"]["workers"])


class LoadPhases(BootTest):
    """Every load, two rounds, a sweep of two values for each swept load: rates, samples, CPU time, summary."""
    PARAMS = ("initbench.phases=none," + ",".join(LOADS), "initbench.duration=1",
              "initbench.rounds=2", "initbench.workers=2", "initbench.thread.threads=8",
              "initbench.pipe.fds=4", "initbench.pipe.mode=socket", "initbench.sleep.tasks=200",
              "initbench.sleep.interval=0.02") + tuple(
                  f"initbench.{SWEEP_KEYS[load]}={','.join(map(str, values))}" for load, values in SWEEP_VALUES.items())
    NAMES = ["none"] + [name for load in LOADS for name in SWEEPS.get(load, [load])]

    def test_complete_without_errors(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        assert_clean_end(self, self.r)
        self.assertEqual(self.r.records("error"), [])

    def test_phases_in_order_with_sweeps(self):
        phases = self.r.records("phase")
        self.assertEqual([p["phase"] for p in phases], self.NAMES * 2)
        self.assertEqual([p["round"] for p in phases], [0] * len(self.NAMES) + [1] * len(self.NAMES))
        by_name = {p["phase"]: p for p in phases}
        self.assertEqual(by_name["tcp-4"]["load"]["clients"], 4)
        self.assertEqual(by_name["tcp-4"]["load"]["params"]["workers"], 4)
        self.assertEqual(by_name["pipe-2"]["load"]["groups"], 2)
        self.assertEqual(by_name["pipe-2"]["load"]["params"]["mode"], "socket")
        self.assertEqual(sorted({p["load"]["name"] for p in load_phases(self.r)}), sorted(LOADS))

    def test_every_load_counts_with_samples(self):
        for p in load_phases(self.r):
            with self.subTest(phase=p["phase"], round=p["round"]):
                self.assertGreater(p["ops"], 0)
                self.assertEqual(sum(p["ops_per_worker"]), p["ops"])
                rate = p["metrics"]["ops_per_s"]
                self.assertGreater(rate["value"], 0)
                # Whole operations over the time they took, each worker's span within an
                # operation or so of the window (the guest's own clock reads).
                spans = p["ops_span_s"]
                self.assertAlmostEqual(sum(n / s for n, s in zip(p["ops_per_worker"], spans)), rate["value"],
                                       delta=rate["value"] * 1e-9)
                self.assertTrue(all(0 < s < 2 * p["duration_s"] for s in spans), spans)
                if min(p["ops_per_worker"]) >= 2:  # timed in the worker, not the window's length
                    self.assertTrue(all(s != p["duration_s"] for s in spans), spans)
                self.assertEqual(rate["agg"], "hmean")
                self.assertTrue(rate["unit"].endswith("/s"))
                samples = p["samples"]["ops_per_s"]
                self.assertGreaterEqual(len(samples), 3)
                self.assertGreater(sum(samples), 0)
                self.assertEqual(len(p["samples"]["tasks"]), len(samples))
                self.assertGreater(p["cpu"]["user_s"] + p["cpu"]["sys_s"], 0)
                self.assertIn("cgroup", p["cpu"]["source"])
                self.assertEqual(p["failures"], {"task_create": 0, "task_limit_hits": 0, "oom_kills": 0})
                self.assertNotIn("early_exits", p)
                if p["load"]["name"] in ("tcp", "pipe"):
                    self.assertGreater(p["metrics"]["mb_per_s"]["value"], 0)

    def test_tasks_created_and_alive(self):
        for p in load_phases(self.r):
            with self.subTest(phase=p["phase"], round=p["round"]):
                name, params = p["load"]["name"], p["load"]["params"]
                if name in ("fork", "thread"):  # one task per operation, give or take a batch
                    batch = params["workers"] * params.get("threads", 1)
                    self.assertGreaterEqual(p["tasks"]["created"], p["ops"] - batch)
                if name == "sleep":
                    self.assertEqual(p["tasks"]["peak_sampled"], 200 + params["workers"])
                if name == "pipe":
                    self.assertEqual(p["tasks"]["peak_sampled"], params["workers"] * (1 + 2 * 4))

    def test_no_task_left_behind(self):
        self.assert_nothing_left()

    def test_summary_is_the_harmonic_mean_of_the_rounds(self):
        summary = self.r.one("summary")
        by_phase = {s["phase"]: s for s in summary["phases"]}
        self.assertEqual(sorted(by_phase), sorted(self.NAMES[1:]))
        for name in ("tcp-1", "tcp-4", "pipe-1"):
            rates = [p["metrics"]["ops_per_s"]["value"] for p in self.r.records("phase")
                     if p["phase"] == name]
            s = by_phase[name]["metrics"]["ops_per_s"]
            self.assertEqual(s["rounds"], rates)
            self.assertAlmostEqual(s["value"], len(rates) / sum(1 / x for x in rates), delta=1e-6 * s["value"])


class LoadLimits(BootTest):
    """A fork load at its task limit, and churn: the guest does not hang, nothing is left.
    load.cpus names CPU 7, which the guest (1 CPU) lacks: the host lets a list with one CPU
    online through, and the init leaves CPU 7 out with a warning."""
    PARAMS = ("initbench.phases=fork,cpu,none", "initbench.duration=1.5", "initbench.workers=8",
              "initbench.limit.tasks=10", "initbench.churn=0.3", "initbench.load.cpus=0,7",
              "initbench.load.nice=5")

    def test_complete(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        assert_clean_end(self, self.r)
        self.assertEqual([p["phase"] for p in self.r.records("phase")], ["fork", "cpu", "none"])

    def test_fork_at_its_limit_goes_on(self):
        fork = self.r.records("phase")[0]
        self.assertEqual(fork["limits"]["tasks"], 10)
        self.assertGreater(fork["ops"], 0)
        self.assertGreater(fork["failures"]["task_create"], 0)
        self.assertGreater(fork["failures"]["task_limit_hits"], 0)
        warnings = " ".join(w["reason"] for w in self.r.records("warning"))
        self.assertIn("limit.tasks is 10", warnings)
        self.assertIn("refused", warnings)

    def test_churn_respawns(self):
        for p in load_phases(self.r):
            with self.subTest(phase=p["phase"]):
                self.assertEqual(p["churn"]["period_s"], 0.3)
                self.assertGreaterEqual(p["churn"]["respawns"], 2)
                self.assertGreater(p["ops"], 0)
        cpu = self.r.records("phase")[1]
        # Respawned workers are new processes: more tasks made than the 8 first ones.
        self.assertGreaterEqual(cpu["tasks"]["created"], 16)

    def test_placement(self):
        warnings = {w["what"]: w["reason"] for w in self.r.records("warning")}
        self.assertEqual(warnings.get("load.cpus"), "not online, left out: CPU 7", warnings)
        for p in load_phases(self.r):
            with self.subTest(phase=p["phase"]):
                self.assertEqual(p["load"]["cpus"], [0])
                self.assertEqual(p["load"]["nice"], 5)
                self.assertNotIn("early_exits", p)  # a worker whose set-up fails exits

    def test_no_task_left_behind(self):
        self.assert_nothing_left()


class LoadOutOfMemory(BootTest):
    """An OOM kill at the load's memory limit is a record, and the run goes on."""
    PARAMS = ("initbench.phases=thread,cpu", "initbench.duration=1", "initbench.workers=2",
              "initbench.thread.threads=3000", "initbench.limit.memory_mb=48")

    def test_oom_kill_recorded_and_next_phase_runs(self):
        assert_clean_end(self, self.r)
        thread, cpu = self.r.records("phase")
        self.assertEqual(thread["limits"]["memory_mb"], 48)
        self.assertGreater(thread["failures"]["oom_kills"], 0)
        self.assertTrue(thread["early_exits"])
        self.assertTrue(any(k["kind"] == "oom" and k["phase"] == "thread" for k in self.r.records("kernel")))
        self.assertTrue(any("memory limit" in w["reason"] for w in self.r.records("warning")))
        self.assertGreater(cpu["ops"], 0)
        self.assertEqual(cpu["failures"]["oom_kills"], 0)
        self.assert_nothing_left()


class ManySleepers(BootTest):
    """15 000 sleeping tasks fit in a 2 GiB guest (the RCU Tasks Trace experiment's load)."""
    PARAMS = ("initbench.phases=sleep,none", "initbench.duration=1", "initbench.sleep.tasks=15000",
              "initbench.sleep.interval=1")
    ARGS = ("--memory", "2048")

    def test_all_sleepers_run(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        assert_clean_end(self, self.r)
        sleep = self.r.records("phase")[0]
        self.assertEqual(sleep["failures"]["task_create"], 0)
        self.assertEqual(sleep["tasks"]["peak_sampled"], 15000 + sleep["load"]["params"]["workers"])
        self.assertGreater(sleep["ops"], 0)
        # Sleepers that sleep 1 s may all wake within one 0.25 s sample: some samples are 0.
        self.assertGreater(len(sleep["samples"]["ops_per_s"]), 1)
        self.assertGreater(max(sleep["samples"]["ops_per_s"]), 0)
        self.assert_nothing_left()


class MmCidProfile(BootTest):
    """`initbench.profile=mm_cid`, shortened: four phases, each after its quiet rest; one
    worker per CPU ($nproc), each thread worker making batches of 4 threads as stress-ng's
    --pthread-max 4 does. The profile
    names a 128-CPU machine; --cpus 2 wins over it, and the results say so."""
    PARAMS = ("initbench.profile=mm_cid", "initbench.duration=2", "initbench.rest=0.5")
    ARGS = ("--cpus", "2", "--memory", "2048")

    def test_four_phases_complete(self):
        assert_clean_end(self, self.r)
        self.assertEqual(self.r.records("error"), [])
        self.assertEqual([p["phase"] for p in self.r.records("phase")], ["none", "cpu", "fork", "thread"])
        for p in self.r.records("phase"):
            self.assertEqual(p["rest_s"], 0.5)

    def test_the_machine_is_the_command_lines(self):
        machine = self.r.doc["host"]["machine"]
        self.assertEqual((machine["cpus"], machine["cpus_source"]), (2, "--cpus"))
        self.assertEqual(self.r.one("header")["kernel"]["cpus_online"], 2)
        # Two vCPUs on no more than two host CPUs: one TCG thread in turn (a thread each froze).
        argv = self.r.doc["host"]["qemu_argv"]
        self.assertEqual(argv[argv.index("-accel") + 1], "tcg,thread=single" if os.cpu_count() <= 2 else "tcg")
        warnings = [w for w in self.r.records("warning") if w.get("what") == "machine"]
        self.assertEqual(len(warnings), 1, "the guest says it is not the profile's 128-CPU machine")
        self.assertIn("128 CPUs (profile:mm_cid); this one has 2", warnings[0]["reason"])

    def test_the_profile_counts(self):
        phases = {p["phase"]: p for p in self.r.records("phase")}
        self.assertEqual(phases["cpu"]["load"]["params"], {"workers": 2, "cpu_load_pct": 80})
        thread = phases["thread"]
        self.assertEqual(thread["load"]["params"], {"workers": 2, "threads": 4, "mode": "batch"})
        self.assertEqual(thread["failures"]["task_create"], 0)
        # stress-ng --pthread-max 4: each worker has at most 4 threads besides itself. The
        # sample is the pids cgroup's count, which keeps a joined thread until the kernel
        # releases it (pthread_join returns before that): a batch just joined may still be
        # counted beside the next (11 seen once in CI). Not batches of 32 (66).
        self.assertGreaterEqual(thread["tasks"]["peak_sampled"], 2)
        self.assertLessEqual(thread["tasks"]["peak_sampled"], 2 * (1 + 4 + 4))
        # Batches of 4 go on all through the window: many batches a worker, not one.
        self.assertGreater(thread["ops"], 2 * 4 * 3)
        warnings = " ".join(w["reason"] for w in self.r.records("warning"))
        self.assertNotIn("not every worker was ready", warnings)
        for p in load_phases(self.r):
            with self.subTest(phase=p["phase"]):
                self.assertGreater(p["metrics"]["ops_per_s"]["value"], 0)
        self.assert_nothing_left()

    def test_user_wakeups_and_the_probe(self):
        for p in self.r.records("probe"):
            if p["probe"] == "funclat":
                # task_mm_cid_work came in 6.4: on 6.1 the probe says so, with no numbers.
                self.assertFalse(p["supported"])
                self.assertIn("task_mm_cid_work", p["reason"])
                self.assertNotIn("count", p)


class RcuTasksTraceProfile(BootTest):
    """`initbench.profile=rcu_tasks_trace`, its sleep phase shortened: 15 000 sleepers calling
    getpgid, with task-storage churn on it, make real RCU Tasks Trace grace periods, and the
    kthread's ticks per grace period."""
    PARAMS = ("initbench.profile=rcu_tasks_trace", "initbench.phases=sleep", "initbench.duration=3")
    # 8 vCPUs and 15 000 processes under TCG: 100 s on a quiet 2-core host, 540 s beside
    # another suite (the kind of boot.ManyCpus).
    ctest_boot_s = 1800

    def test_the_profiles_machine(self):
        # No --cpus or --memory: the profile's 8-CPU, 2 GiB machine.
        machine = self.r.doc["host"]["machine"]
        self.assertEqual((machine["cpus"], machine["cpus_source"]), (8, "profile:rcu_tasks_trace"))
        self.assertEqual((machine["memory_mb"], machine["memory_source"]), (2048, "profile:rcu_tasks_trace"))
        self.assertEqual(self.r.one("header")["kernel"]["cpus_online"], 8)
        self.assertEqual([w for w in self.r.records("warning") if w.get("what") == "machine"], [])
        # 15 000 sleepers, each a process of its own as the seed forked them.
        self.assertEqual(self.r.one("phase")["load"]["params"]["mode"], "process")

    def probe(self, name):
        found = [p for p in self.r.records("probe") if p["probe"] == name]
        self.assertEqual(len(found), 1, name)
        return found[0]

    def test_complete(self):
        assert_clean_end(self, self.r)
        self.assertEqual(self.r.records("error"), [])
        sleep = self.r.one("phase")
        self.assertEqual(sleep["failures"]["task_create"], 0)
        self.assert_nothing_left()

    def test_grace_periods_under_churn(self):
        # As the seed: each sleeper's getpgid() churns the storage, from the call's entry.
        churn = self.probe("task_storage_churn")
        self.assertEqual((churn["syscall"], churn["function"]), ("getpgid", "__x64_sys_getpgid"))
        self.assertGreater(churn["created"], 0)
        self.assertEqual(churn["deleted"], churn["created"])
        span = self.probe("span")
        self.assertTrue(span["supported"], span.get("reason"))
        self.assertEqual(span["from"], "rcu_tasks_trace_pregp_step")
        self.assertGreater(span["count"], 0, "no Tasks Trace grace period: is the kthread starved?")
        self.assertGreater(span["avg"], 0)
        kthread = self.probe("kthread")
        self.assertIn("rcu_tasks_trace_kthread", [t["comm"] for t in kthread["threads"]])
        # Ticks per grace period: the kthreads' ticks over the spans of the same phase.
        self.assertAlmostEqual(kthread["ticks_per_span"], kthread["ticks"] / span["count"])
        self.assertEqual(kthread["ticks"], sum(t["utime"] + t["stime"] for t in kthread["threads"]))
        # The seed's "ticks per grace period, avg and stddev": stime over the spans of each
        # sampling interval that had one.
        per_span = kthread["stime_per_span"]
        self.assertGreaterEqual(per_span["intervals"], 1, kthread)
        self.assertEqual(len(kthread["samples"]["stime"]), len(span["samples"]["count"]))
        self.assertLessEqual(sum(kthread["samples"]["stime"]), sum(t["stime"] for t in kthread["threads"]))
        with_spans = [s / n for s, n in zip(kthread["samples"]["stime"], span["samples"]["count"]) if n]
        self.assertAlmostEqual(per_span["avg"], sum(with_spans) / len(with_spans))


class LoadModes(BootTest):
    """The seeds' load semantics, under the instruction-counting clock (guest time is work
    done, so a share of CPU time is exact): a cpu worker spinning 80 % of each slice
    (stress-ng --cpu-load 80), sleepers that are processes, and a getpgid loop, each checked
    by the kernel's own accounting; then the sleepers and the loop together in one window
    (the RCU Tasks Trace seed's shape)."""
    PARAMS = ("initbench.phases=cpu,sleep,syscall,sleep+syscall", "initbench.duration=2", "initbench.workers=1",
              "initbench.cpu.load=80", "initbench.sleep.mode=process", "initbench.sleep.tasks=200",
              "initbench.sleep.interval=0.05", "initbench.syscall.name=getpgid", "initbench.wakeups=1",
              "initbench.sleep.syscall=getppid", "initbench.funclat=__x64_sys_getpgid,__x64_sys_getppid",
              "nokaslr", "norandmaps")
    ARGS = ("--clock", "icount")

    def phase(self, name):
        found = [p for p in self.r.records("phase") if p["phase"] == name]
        self.assertEqual(len(found), 1, name)
        return found[0]

    def probe(self, name, phase, function="__x64_sys_getpgid"):
        found = [p for p in self.r.records("probe") if p["probe"] == name and p["phase"] == phase
                 and p.get("function", function) == function]
        self.assertEqual(len(found), 1, (name, phase))
        return found[0]

    def test_complete(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        assert_clean_end(self, self.r)
        self.assert_nothing_left()

    def test_cpu_load_is_a_share_of_cpu_time(self):
        cpu = self.phase("cpu")
        self.assertEqual(cpu["load"]["params"]["cpu_load_pct"], 80)
        self.assertIn("cgroup", cpu["cpu"]["source"])
        used = (cpu["cpu"]["user_s"] + cpu["cpu"]["sys_s"]) / cpu["duration_s"]
        self.assertAlmostEqual(used, 0.8, delta=0.08)

    def test_sleepers_are_processes(self):
        sleep = self.phase("sleep")
        self.assertEqual(sleep["load"]["params"]["mode"], "process")
        self.assertEqual(sleep["tasks"]["peak_sampled"], 200 + 1)
        # The kernel woke 200 distinct processes (each sleeper is one), not threads of one.
        self.assertGreaterEqual(self.probe("wakeups", "sleep")["processes"], 200)
        self.assertGreater(sleep["ops"], 200)

    def test_sleepers_call_their_syscall_when_they_wake(self):
        # sleep.syscall=getppid: one call per wake-up, counted by the kernel's own entries.
        for phase in ("sleep", "sleep+syscall"):
            with self.subTest(phase=phase):
                p = self.phase(phase)
                ops = p["ops"] if phase == "sleep" else p["loads"][0]["ops"]
                calls = self.probe("funclat", phase, "__x64_sys_getppid")
                self.assertTrue(calls["supported"], calls.get("reason"))
                self.assertAlmostEqual(calls["count"], ops, delta=0.02 * ops + 250)
        self.assertEqual(self.probe("funclat", "syscall", "__x64_sys_getppid")["count"], 0)

    def test_the_loop_calls_getpgid(self):
        syscall = self.phase("syscall")
        self.assertEqual(syscall["load"]["params"]["syscall"], "getpgid")
        calls = self.probe("funclat", "syscall")
        self.assertTrue(calls["supported"], calls.get("reason"))
        # Each operation is 1024 calls; the probe counts the kernel's entries into getpgid.
        self.assertAlmostEqual(calls["count"] / 1024, syscall["ops"], delta=2 + 0.01 * syscall["ops"])

    def test_two_loads_in_one_window(self):
        both = self.phase("sleep+syscall")
        self.assertNotIn("load", both)
        self.assertEqual([load["name"] for load in both["loads"]], ["sleep", "syscall"])
        window = both["duration_s"]
        self.assertAlmostEqual(window, 2.0, delta=0.1)
        for load in both["loads"]:
            with self.subTest(load=load["name"]):
                self.assertGreater(load["ops"], 0)
                rate = load["metrics"]["ops_per_s"]
                self.assertEqual((rate["unit"], rate["agg"], rate["better"]),
                                 (load["op_unit"] + "/s", "hmean", "higher"))
                # Each load's rate is its workers' whole operations over the time they took,
                # as for a phase with one load; not its ops over the shared window.
                self.assertEqual(sum(load["ops_per_worker"]), load["ops"])
                spans = load["ops_span_s"]
                self.assertAlmostEqual(sum(n / s for n, s in zip(load["ops_per_worker"], spans)), rate["value"],
                                       delta=1e-9 * rate["value"])
                self.assertTrue(all(0 < s < 2 * window for s in spans), spans)
                # At the top too, named after the load: compare pairs each load's rate.
                self.assertEqual(both["metrics"][load["name"] + ".ops_per_s"], rate)
                self.assertEqual(len(both["samples"][load["name"] + ".ops_per_s"]), 4)
                self.assertIn("cgroup", load["cpu"]["source"])
                self.assertGreater(load["cpu"]["user_s"] + load["cpu"]["sys_s"], 0)
                self.assertEqual(load["tasks"]["running_after_stop"], 0)
                self.assertGreaterEqual(load["tasks"]["reaped"], load["params"]["workers"])
        sleep, syscall = both["loads"]
        self.assertNotEqual(sleep["cgroup"], syscall["cgroup"])
        self.assertEqual(sleep["params"]["mode"], "process")
        # One CPU: the two loads' CPU time together fits in the window.
        used = sum(load["cpu"]["user_s"] + load["cpu"]["sys_s"] for load in both["loads"])
        self.assertLessEqual(used, window * 1.05)
        # Sampled together: 200 sleepers and their worker, and the loop.
        self.assertEqual(both["tasks"]["peak_sampled"], 200 + 1 + 1)
        self.assertEqual(both["tasks"]["leftover"], 0)
        # The probes measured the phase over every load's tasks.
        self.assertGreaterEqual(self.probe("wakeups", "sleep+syscall")["processes"], 200)
        calls = self.probe("funclat", "sleep+syscall")
        self.assertAlmostEqual(calls["count"] / 1024, syscall["ops"], delta=2 + 0.01 * syscall["ops"])


if __name__ == "__main__":
    unittest.main()
