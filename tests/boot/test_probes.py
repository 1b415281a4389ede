"""Boot tests of the probes on Debian's 6.1 kernel: each attaches for real and counts what
the fork load makes the kernel do."""
import unittest

import bootlib

FORK = ["initbench.phases=none,fork", "initbench.duration=1", "initbench.workers=1"]


def probe(r, name, phase, function=None):
    found = [p for p in r.records("probe") if p["probe"] == name and p["phase"] == phase
             and function in (None, p.get("function"))]
    assert len(found) == 1, f"{name} in {phase}: {found}"
    return found[0]


def phase_record(r, phase):
    return [p for p in r.records("phase") if p["phase"] == phase][0]


def fork_ops(r):
    return phase_record(r, "fork")["ops"]


def assert_percentile_metrics(test, record):
    """The record's percentiles are also its metrics percentiles.pNN, for compare."""
    for name, value in record["percentiles"].items():
        test.assertEqual(record["metrics"][f"percentiles.{name}"]["value"], value, name)
    test.assertEqual(set(record["percentiles"]), {"p50", "p90", "p99"})


def assert_softirq_adds_up(test, s, cpus):
    """A softirq record's totals are its vectors' and its histogram's, and its figures are in
    order; a wait is counted at a run's entry, its run at the exit, so up to a run per CPU
    is still under way when the window closes."""
    test.assertEqual(s["count"], sum(v["count"] for v in s["vectors"]))
    test.assertEqual(s["time"], sum(v["time"] for v in s["vectors"]))
    test.assertEqual(s["count"], sum(c for _, c in s["log2"]))
    test.assertLessEqual(s["wait"]["count"], s["count"] + cpus)
    if s["count"]:
        test.assertAlmostEqual(s["avg"] * s["count"], s["time"], delta=1)
        test.assertEqual(s["max"], max(v["max"] for v in s["vectors"]))
        p = s["percentiles"]
        test.assertLessEqual(p["p50"], p["p90"])
        test.assertLessEqual(p["p90"], p["p99"])
        test.assertLessEqual(p["p99"], s["max"])
        assert_percentile_metrics(test, s)
    if s["wait"]["count"]:
        test.assertLessEqual(s["wait"]["avg"], s["wait"]["max"])


BPF_PROBES = {"funclat", "span", "wakeups", "task_storage_churn", "softirq"}


def runs_of(cost, program):
    return sum(p["runs"] for p in cost["programs"] if p["name"] == program)


def assert_cost_adds_up(test, probe_record, phase_record, cpus):
    """A probe record's cost: its totals are its programs', its per-run time and CPU share
    follow from them and the phase's window, and its metrics are the same numbers."""
    c = probe_record["cost"]
    test.assertTrue(c["supported"], c)
    test.assertEqual(c["method"], "BPF_ENABLE_STATS")
    test.assertEqual(c["runs"], sum(p["runs"] for p in c["programs"]))
    test.assertEqual(c["ns"], sum(p["ns"] for p in c["programs"]))
    if c["runs"]:
        test.assertAlmostEqual(c["ns_per_run"], c["ns"] / c["runs"], delta=1e-6 * c["ns_per_run"])
        test.assertEqual(probe_record["metrics"]["cost.ns_per_run"]["value"], c["ns_per_run"])
    # The cost's window is the probes' own, a few ms around the phase's.
    share = 100 * c["ns"] / 1e9 / (phase_record["duration_s"] * cpus)
    test.assertAlmostEqual(c["cpu_pct"], share, delta=0.05 * share + 1e-9)
    test.assertEqual(probe_record["metrics"]["cost.cpu_pct"]["value"], c["cpu_pct"])


class Probes(unittest.TestCase):
    """One boot with every probe on: each reports real counts for the fork phase; the RCU
    seed's task-storage churn on getpgid in a syscall phase; wake-ups of user tasks only, as
    the mm_cid seed counted them; funclat's subtraction of switched-out time against sleeps
    of a known length."""
    SLEEP_S = 0.02  # each sleeper's nanosleep, sleep.interval

    @classmethod
    def setUpClass(cls):
        cls.r = bootlib.run("initbench.phases=none,fork,syscall,sleep", "initbench.duration=1", "initbench.workers=1",
                            "initbench.sleep.tasks=8", f"initbench.sleep.interval={cls.SLEEP_S}",
                            "initbench.funclat=kernel_clone,hrtimer_nanosleep", "initbench.funclat.subtract=offcpu",
                            "initbench.span=kernel_clone:wake_up_new_task", "initbench.wakeups=1",
                            "initbench.wakeups.tasks=user", "initbench.schedstat=1",
                            "initbench.kthread=rcu_preempt,kworker/*", "initbench.syscall.name=getpgid",
                            "initbench.task_storage_churn.on=syscall:getpgid", "initbench.softirq=1")

    def test_run_complete(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)

    def test_funclat_subtracts_switched_out_time(self):
        f = probe(self.r, "funclat", "fork", "kernel_clone")
        self.assertTrue(f["supported"], f.get("reason"))
        self.assertEqual(f["subtract"], "offcpu")
        self.assertGreater(f["count"], 0)
        self.assertLessEqual(f["switched_out"]["calls"], f["count"])
        if f["switched_out"]["calls"]:
            self.assertGreater(f["switched_out"]["subtracted"], 0, f["switched_out"])
        # A call already in flight when the window opened counts on return only.
        self.assertGreaterEqual(f["entries"], f["count"] - 8)
        self.assertEqual(f["switch_mechanism"], "tp_btf/sched_switch")
        self.assertEqual(sum(c for _, c in f["log2"]), f["count"])
        p = f["percentiles"]
        self.assertGreaterEqual(p["p50"], f["min"])
        self.assertLessEqual(p["p50"], p["p90"])
        self.assertLessEqual(p["p90"], p["p99"])
        self.assertLessEqual(p["p99"], f["max"])
        assert_percentile_metrics(self, f)

    def test_funclat_subtraction_accounts_for_the_time_slept(self):
        # Checked against a fact the probe does not produce: every nanosleep of the sleep
        # load lasts at least sleep.interval, off the CPU. With that time subtracted, what is
        # left is the call's own work, far below the interval; added back, it accounts for
        # every sleep. Counting the duration whole, or subtracting nothing, fails here.
        f = probe(self.r, "funclat", "sleep", "hrtimer_nanosleep")
        self.assertTrue(f["supported"], f.get("reason"))
        self.assertEqual(f["unit"], "ns")
        interval_ns = self.SLEEP_S * 1e9
        count, out = f["count"], f["switched_out"]
        self.assertGreater(count, 20, "8 sleepers of 20 ms for 1 s")
        self.assertEqual(out["calls"], count, "every sleep switches out")
        self.assertGreater(out["subtracted"], 0)
        self.assertLess(f["avg"], 0.1 * interval_ns, f)
        self.assertGreaterEqual(f["sum"] + out["subtracted"], 0.9 * count * interval_ns, f)

    def test_span_between_functions_that_run_in_order(self):
        s = probe(self.r, "span", "fork")
        self.assertTrue(s["supported"], s.get("reason"))
        # Every fork enters kernel_clone, then wake_up_new_task: one span each.
        self.assertGreaterEqual(s["count"], fork_ops(self.r) * 0.9)
        self.assertGreater(s["avg"], 0)
        self.assertIsNotNone(s["stddev"])
        self.assertGreaterEqual(s["max"], s["min"])
        # Per-second samples at the phase's own sampling points.
        samples = s["samples"]
        self.assertEqual(len(samples["count"]), len(phase_record(self.r, "fork")["samples"]["ops_per_s"]))
        self.assertEqual(len(samples["avg_ns"]), len(samples["count"]))
        self.assertLessEqual(sum(samples["count"]), s["count"])
        self.assertGreaterEqual(sum(samples["count"]), s["count"] - 8)  # spans ended after the last sample
        self.assertTrue(all(a is None or a > 0 for a in samples["avg_ns"]), samples)
        self.assertIsNotNone(samples["avg_ns_stddev"])

    def test_wakeups_counts_distinct_user_tasks(self):
        w = probe(self.r, "wakeups", "fork")
        self.assertEqual(w["tasks"], "user")
        self.assertEqual(w["mechanism"], "fentry/try_to_wake_up")
        self.assertGreater(w["wakeups"], 0)
        self.assertGreater(w["threads"], 1)
        self.assertGreaterEqual(w["threads"], w["processes"])
        self.assertGreater(w["mms"], 0)
        # Only tasks with an mm count: every process counted has one (kernel threads, a
        # process each, would leave processes well above mms).
        self.assertLessEqual(w["processes"] - w["mms"], 2, w)
        # Each fork+exit+wait wakes the waiting parent once, and PID 1's sampling a few times
        # more: 525 wake-ups for 520 forks. The kernel threads woken in the same second (RCU,
        # kworkers) were 320 more with wakeups.tasks=all: far above this bound.
        self.assertLessEqual(w["wakeups"], 1.1 * fork_ops(self.r) + 20, w)

    def test_task_storage_churn_on_each_getpgid(self):
        t = probe(self.r, "task_storage_churn", "syscall")
        self.assertTrue(t["supported"], t.get("reason"))
        # syscall:getpgid is the system call's entry on this architecture.
        self.assertEqual((t["syscall"], t["function"]), ("getpgid", "__x64_sys_getpgid"))
        self.assertEqual(t["mechanism"], "fentry")
        self.assertGreater(t["created"], 0)
        self.assertEqual(t["created"], t["deleted"])
        self.assertEqual(t["failed"], 0)
        # One op is 1024 calls; the window's edges fall inside a block.
        calls = phase_record(self.r, "syscall")["ops"] * 1024
        self.assertAlmostEqual(t["created"], calls, delta=max(3 * 1024, calls * 0.01))

    def test_softirq_runs_add_up(self):
        vectors = {"hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet", "sched", "hrtimer", "rcu"}
        cpus = self.r.one("header")["kernel"]["cpus_online"]
        for phase in ("none", "fork", "syscall"):
            with self.subTest(phase=phase):
                s = probe(self.r, "softirq", phase)
                self.assertTrue(s["supported"], s.get("reason"))
                self.assertEqual(s["mechanism"], "raw_tp/softirq_entry")
                assert_softirq_adds_up(self, s, cpus)
                self.assertLessEqual({v["vector"] for v in s["vectors"]}, vectors)
        # Forked processes exit, and their freeing waits for RCU: the fork phase runs softirqs.
        fork = probe(self.r, "softirq", "fork")
        self.assertGreater(fork["count"], 0)
        self.assertGreater(fork["wait"]["count"], 0)
        self.assertEqual(fork["metrics"]["count"]["value"], fork["count"])
        self.assertEqual(fork["metrics"]["wait.avg"]["value"], fork["wait"]["avg"])
        for v in fork["vectors"]:
            self.assertEqual(fork["metrics"][f"vectors.{v['vector']}.count"]["value"], v["count"])

    def test_each_bpf_probe_says_what_it_cost(self):
        # The kernel counts each program's runs; checked against what the probes count
        # themselves: funclat's entry program runs once per call entered and its exit
        # program once per call timed, span's once per event at each end, the churn's once
        # per storage created. The stats are read a few ms after the maps are zeroed, and
        # read: a few calls of 1 worker's forks (and 8 sleepers') fall between.
        cpus = self.r.one("header")["kernel"]["cpus_online"]
        costed = [p for p in self.r.records("probe") if p["probe"] in BPF_PROBES]
        # 4 phases, each with 2 funclat, span, wakeups, the churn and softirq.
        self.assertEqual(len(costed), 4 * 6, [(p["probe"], p["phase"]) for p in costed])
        for p in costed:
            with self.subTest(probe=p["probe"], function=p.get("function"), phase=p["phase"]):
                assert_cost_adds_up(self, p, phase_record(self.r, p["phase"]), cpus)
        near = lambda runs, n: self.assertAlmostEqual(runs, n, delta=5 + 0.01 * n)
        # In every phase: the window's runs, not the runs since the counting began (the
        # sleep phase forks nothing after the fork phase's hundreds).
        for f in (p for p in costed if p["probe"] == "funclat"):
            with self.subTest(function=f["function"], phase=f["phase"]):
                near(runs_of(f["cost"], "fentry_entry"), f["entries"])
                near(runs_of(f["cost"], "fexit_exit"), f["count"])
        f = probe(self.r, "funclat", "fork", "kernel_clone")
        self.assertGreater(runs_of(f["cost"], "btf_switch"), 0)  # subtract=offcpu
        self.assertEqual(runs_of(f["cost"], "kprobe_entry"), 0)  # not loaded: fentry was
        s = probe(self.r, "span", "fork")
        near(runs_of(s["cost"], "fentry_to"), s["count"])
        t = probe(self.r, "task_storage_churn", "syscall")
        near(t["cost"]["runs"], t["created"] + t["failed"])
        self.assertGreater(f["cost"]["cpu_pct"], 0)
        self.assertLess(f["cost"]["cpu_pct"], 50)
        # The end record sums each phase over its probes (one round here).
        totals = self.r.one("end")["overhead"]["probe_cost"]
        self.assertTrue(totals["supported"], totals)
        for phase in ("none", "fork", "syscall", "sleep"):
            mine = [p["cost"] for p in costed if p["phase"] == phase]
            self.assertEqual(totals["phases"][phase]["runs"], sum(c["runs"] for c in mine), phase)
            self.assertEqual(totals["phases"][phase]["ns"], sum(c["ns"] for c in mine), phase)

    def test_schedstat_deltas(self):
        s = probe(self.r, "schedstat", "fork")
        self.assertTrue(s["supported"], s.get("reason"))
        self.assertEqual(s["version"], 15)
        self.assertGreater(s["cpus"]["cpu0"]["sched_count"], 0)
        self.assertGreater(s["cpus"]["cpu0"]["ttwu_count"], 0)

    def test_kthread_ticks_parsed(self):
        k = probe(self.r, "kthread", "fork")
        comms = {t["comm"] for t in k["threads"]}
        self.assertIn("rcu_preempt", comms)
        self.assertTrue(any(c.startswith("kworker/") for c in comms))
        self.assertEqual(k["ticks"], sum(t["ticks"] for t in k["threads"]))
        self.assertEqual(k["clk_tck"], 100)


class WakeupsUnderThreads(unittest.TestCase):
    """The mm_cid thread's @threads/@processes: a thread load wakes many distinct tasks; ids
    above the kernel.pid_max that sized the probe's arrays are counted too; and a probe whose
    cost is not counted says why."""

    def test_thread_load_wakes_distinct_threads(self):
        # With the cost's counting off (probe_cost=0): the record says so, and no cost
        # metric claims a number. pid_max starts at 1024; the sleep phase's 1000 sleepers make
        # init raise it, and take ids above 1024, which the arrays sized at load time lack.
        r = bootlib.run("initbench.phases=thread,sleep,none", "initbench.duration=1", "initbench.workers=2",
                        "initbench.thread.threads=8", "initbench.sleep.tasks=1000", "initbench.sleep.interval=0.2",
                        "initbench.wakeups=1", "initbench.probe_cost=0", "sysctl.kernel.pid_max=1024")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        w = probe(r, "wakeups", "thread")
        self.assertTrue(w["supported"], w.get("reason"))
        self.assertGreater(w["threads"], 8, w)
        self.assertGreaterEqual(w["processes"], 2, w)
        self.assertGreaterEqual(w["threads"], w["processes"])
        off = {"supported": False, "reason": "turned off (initbench.probe_cost=0)"}
        self.assertEqual(w["cost"], off)
        self.assertFalse([m for m in w["metrics"] if m.startswith("cost.")], w["metrics"])
        self.assertEqual(r.one("end")["overhead"]["probe_cost"], off)

        sleep = phase_record(r, "sleep")
        self.assertEqual(sleep["kernel_limits_raised"]["pid_max"]["was"], 1024, sleep)
        w = probe(r, "wakeups", "sleep")
        # Each sleeper wakes every 0.2 s: all 1000 within the second, each counted once.
        self.assertGreaterEqual(w["threads"], 1000, w)
        self.assertLessEqual(w["threads"], 1000 + 100, w)
        self.assertEqual(w["dropped"], 0, w)
        # An idle phase wakes a few kernel threads and init: each phase counts its own.
        self.assertLess(probe(r, "wakeups", "none")["threads"], 100)


class ProbeFallbacks(unittest.TestCase):
    """The kernel cannot, or the user forces another path: the run goes on and says so."""
    ctest_boots = 3

    def test_kprobe_path_counts_like_fentry(self):
        ratios = {}
        for mode in ("fentry", "kprobe"):
            r = bootlib.run(*FORK, "initbench.funclat=kernel_clone", f"initbench.attach={mode}",
                            "initbench.task_storage_churn.on=kernel_clone",
                            "initbench.floor=kernel_clone,entry:kernel_clone,tp_btf:sched_wakeup")
            self.assertEqual(r.code, 0, r.stdout + r.stderr)
            f = probe(r, "funclat", "fork")
            self.assertTrue(f["supported"], f.get("reason"))
            self.assertEqual(f["mechanism"], {"fentry": "fentry/fexit", "kprobe": "kprobe/kretprobe"}[mode])
            ratios[mode] = f["count"] / fork_ops(r)
            # Task storage from a kprobe too: 6.1 gives kprobe programs its helpers.
            t = probe(r, "task_storage_churn", "fork")
            self.assertEqual(t["mechanism"], mode, t)
            self.assertEqual(t["created"], t["deleted"])
            ratios["churn " + mode] = t["created"] / fork_ops(r)
            self.check_floor(probe(r, "floor", "fork", "kernel_clone"), f, mode)
            self.check_other_floors(r, f, mode)
        # Both count every fork of the load (the load counts after its fork returns).
        for mode, ratio in ratios.items():
            self.assertAlmostEqual(ratio, 1.0, delta=0.1, msg=f"{mode}: {ratios}")

    def check_floor(self, floor, funclat, mode):
        """The floor's empty programs ran on the calls funclat timed, the same way, and each
        run cost less than funclat's."""
        self.assertTrue(floor["supported"], floor.get("reason"))
        self.assertEqual(floor["mechanism"], funclat["mechanism"])
        self.assertEqual(set(floor["metrics"]), {"cost.cpu_pct", "cost.ns_per_run"})
        entry = {"fentry": "fentry_entry", "kprobe": "kprobe_entry"}[mode]
        runs = runs_of(funclat["cost"], entry)
        self.assertGreater(runs, 100)
        self.assertAlmostEqual(runs_of(floor["cost"], entry), runs, delta=5 + 0.01 * runs)
        self.assertLess(floor["cost"]["ns_per_run"], funclat["cost"]["ns_per_run"], (floor["cost"], funclat["cost"]))

    def check_other_floors(self, r, funclat, mode):
        """The floor at a function's entry alone runs its entry program only, on the same
        calls; the one on a raw tracepoint is tp_btf whatever attach says, and runs on each
        wake-up of the load's parent by its child's exit."""
        entry = {"fentry": "fentry_entry", "kprobe": "kprobe_entry"}[mode]
        alone = probe(r, "floor", "fork", "entry:kernel_clone")
        self.assertTrue(alone["supported"], alone.get("reason"))
        self.assertEqual(alone["mechanism"], mode)
        self.assertEqual({p["name"] for p in alone["cost"]["programs"]}, {entry})
        runs = runs_of(funclat["cost"], entry)
        self.assertAlmostEqual(runs_of(alone["cost"], entry), runs, delta=5 + 0.01 * runs)
        tp = probe(r, "floor", "fork", "tp_btf:sched_wakeup")
        self.assertTrue(tp["supported"], tp.get("reason"))
        self.assertEqual(tp["mechanism"], "tp_btf/sched_wakeup")
        self.assertGreater(runs_of(tp["cost"], "tp_btf_nothing"), 0.5 * fork_ops(r))

    def test_missing_function_is_unsupported_and_the_run_completes(self):
        # task_mm_cid_work does not exist in 6.1 (it came with 6.4's mm_cid). Neither does the
        # churn's function: that one is an error (the churn is the load), yet the phases run.
        r = bootlib.run(*FORK, "initbench.funclat=task_mm_cid_work,kernel_clone",
                        "initbench.task_storage_churn.on=ib_no_such_function", "initbench.floor=tp_btf:ib_no_such")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        self.assertEqual(r.records("end")[0]["status"], "error")
        errors = [e for e in r.records("error") if e["what"] == "probe task_storage_churn"]
        self.assertEqual(len(errors), 1, r.records("error"))
        self.assertIn("ib_no_such_function is not a function of this kernel", errors[0]["reason"])
        churn = probe(r, "task_storage_churn", "fork")
        self.assertFalse(churn["supported"])
        self.assertIn("not found", churn["reason"])
        missing = [p for p in r.records("probe")
                   if p.get("function") == "task_mm_cid_work" and p["phase"] == "fork"][0]
        self.assertFalse(missing["supported"])
        self.assertIn("not found in BTF or kallsyms", missing["reason"])
        present = [p for p in r.records("probe") if p.get("function") == "kernel_clone" and p["phase"] == "fork"][0]
        self.assertGreater(present["count"], 0)
        self.assertTrue(any(w["what"].startswith("probe funclat") for w in r.records("warning")))
        no_tracepoint = probe(r, "floor", "fork", "tp_btf:ib_no_such")
        self.assertFalse(no_tracepoint["supported"])
        self.assertEqual(no_tracepoint["reason"], "tp_btf/ib_no_such: the kernel's BTF has no tracepoint ib_no_such")


if __name__ == "__main__":
    unittest.main()
