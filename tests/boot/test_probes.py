"""Boot tests of the probes on Debian's 6.1 kernel: each attaches for real and counts what
the fork load makes the kernel do."""
import unittest

import bootlib

FORK = ["initbench.phases=none,fork", "initbench.duration=1", "initbench.workers=1"]


def probe(r, name, phase):
    found = [p for p in r.records("probe") if p["probe"] == name and p["phase"] == phase]
    assert len(found) == 1, f"{name} in {phase}: {found}"
    return found[0]


def fork_ops(r):
    return [p for p in r.records("phase") if p["phase"] == "fork"][0]["ops"]


class Probes(unittest.TestCase):
    """One boot with every probe on: each reports real counts for the fork phase."""

    @classmethod
    def setUpClass(cls):
        cls.r = bootlib.run(*FORK, "initbench.funclat=kernel_clone", "initbench.funclat.subtract=offcpu",
                            "initbench.span=kernel_clone:wake_up_new_task", "initbench.wakeups=1",
                            "initbench.schedstat=1", "initbench.kthread=rcu_preempt,kworker/*")

    def test_run_complete(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)

    def test_funclat_subtracts_switched_out_time(self):
        f = probe(self.r, "funclat", "fork")
        self.assertTrue(f["supported"], f.get("reason"))
        self.assertEqual(f["subtract"], "offcpu")
        self.assertGreater(f["count"], 0)
        self.assertLessEqual(f["switched_out"]["calls"], f["count"])
        # A call already in flight when the window opened counts on return only.
        self.assertGreaterEqual(f["entries"], f["count"] - 8)
        self.assertEqual(f["switch_mechanism"], "tp_btf/sched_switch")
        self.assertEqual(sum(c for _, c in f["log2"]), f["count"])
        p = f["percentiles"]
        self.assertGreaterEqual(p["p50"], f["min"])
        self.assertLessEqual(p["p50"], p["p90"])
        self.assertLessEqual(p["p90"], p["p99"])
        self.assertLessEqual(p["p99"], f["max"])

    def test_span_between_functions_that_run_in_order(self):
        s = probe(self.r, "span", "fork")
        self.assertTrue(s["supported"], s.get("reason"))
        # Every fork enters kernel_clone, then wake_up_new_task: one span each.
        self.assertGreaterEqual(s["count"], fork_ops(self.r) * 0.9)
        self.assertGreater(s["avg"], 0)
        self.assertIsNotNone(s["stddev"])
        self.assertGreaterEqual(s["max"], s["min"])

    def test_wakeups_counts_distinct_tasks(self):
        w = probe(self.r, "wakeups", "fork")
        self.assertEqual(w["mechanism"], "tp_btf/sched_wakeup")
        self.assertGreater(w["wakeups"], 0)
        self.assertGreater(w["threads"], 1)
        self.assertGreaterEqual(w["threads"], w["processes"])
        self.assertGreater(w["mms"], 0)

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
    """The mm_cid thread's @threads/@processes: a thread load wakes many distinct tasks."""

    def test_thread_load_wakes_distinct_threads(self):
        r = bootlib.run("initbench.phases=thread", "initbench.duration=1", "initbench.workers=2",
                        "initbench.thread.threads=8", "initbench.wakeups=1")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        w = probe(r, "wakeups", "thread")
        self.assertTrue(w["supported"], w.get("reason"))
        self.assertGreater(w["threads"], 8, w)
        self.assertGreaterEqual(w["processes"], 2, w)
        self.assertGreaterEqual(w["threads"], w["processes"])


class ProbeFallbacks(unittest.TestCase):
    """The kernel cannot, or the user forces another path: the run goes on and says so."""

    def test_kprobe_path_counts_like_fentry(self):
        ratios = {}
        for mode in ("fentry", "kprobe"):
            r = bootlib.run(*FORK, "initbench.funclat=kernel_clone", f"initbench.attach={mode}")
            self.assertEqual(r.code, 0, r.stdout + r.stderr)
            f = probe(r, "funclat", "fork")
            self.assertTrue(f["supported"], f.get("reason"))
            self.assertEqual(f["mechanism"], {"fentry": "fentry/fexit", "kprobe": "kprobe/kretprobe"}[mode])
            ratios[mode] = f["count"] / fork_ops(r)
        # Both count every fork of the load (the load counts after its fork returns).
        for mode, ratio in ratios.items():
            self.assertAlmostEqual(ratio, 1.0, delta=0.1, msg=f"{mode}: {ratios}")

    def test_missing_function_is_unsupported_and_the_run_completes(self):
        # task_mm_cid_work does not exist in 6.1 (it came with 6.4's mm_cid).
        r = bootlib.run(*FORK, "initbench.funclat=task_mm_cid_work,kernel_clone")
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        missing = [p for p in r.records("probe")
                   if p.get("function") == "task_mm_cid_work" and p["phase"] == "fork"][0]
        self.assertFalse(missing["supported"])
        self.assertIn("not found in BTF or kallsyms", missing["reason"])
        present = [p for p in r.records("probe") if p.get("function") == "kernel_clone" and p["phase"] == "fork"][0]
        self.assertGreater(present["count"], 0)
        self.assertTrue(any(w["what"].startswith("probe funclat") for w in r.records("warning")))


if __name__ == "__main__":
    unittest.main()
