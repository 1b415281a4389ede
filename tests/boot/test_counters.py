"""Boot tests of perf counters, commands and modules under counters, and payloads.

Debian's 6.1 kernel under QEMU TCG. What is checked is what a user reads in the results:
counts that are real (or "not supported" with an errno, never a 0), per-run values and
their statistics, and a module built here, packed into the image and loaded with its
parameters on every repeat."""
import math
import os
import re
import statistics
import subprocess
import unittest
from pathlib import Path

import bootlib
from test_boot import assert_clean_end

MODULE_BUILD = bootlib.SOURCE / "tests/module/build.sh"


def check_counter_entry(test, c):
    """A counter is either counted (a number) or says why not: never a silent 0."""
    if c["supported"] and "values" in c:  # a command's counter: one value per run, or null
        counted = [v for v in c["values"] if v is not None]
        test.assertEqual(c["counted_runs"], len(counted), c)
        if not counted:
            test.assertIn("not counted", c["reason"])
            return
        for v in counted:
            test.assertIsInstance(v, int, c)
        # The statistics, recomputed here from the runs' own values.
        test.assertAlmostEqual(c["mean"], statistics.fmean(counted), delta=1e-6 * max(1, abs(c["mean"])))
        if len(counted) >= 2:
            test.assertAlmostEqual(c["stddev"], statistics.stdev(counted), delta=1e-6 * max(1, c["stddev"]))
        test.assertGreater(c["running_pct"], 0, c)
        test.assertLessEqual(c["running_pct"], 100.0001, c)
    elif c["supported"]:
        if c.get("counted", True):
            test.assertIsInstance(c["value"], int, c)
            test.assertGreater(c["running_pct"], 0, c)
            test.assertLessEqual(c["running_pct"], 100.0001, c)
        elif not c.get("counted", True):
            test.assertIn("not counted", c["reason"])
    else:
        test.assertGreater(c["errno"], 0, c)
        test.assertIn("not supported", c["reason"])
        test.assertNotIn("value", c)
        test.assertNotIn("mean", c)


def by_event(counters):
    return {c["event"]: c for c in counters}


def build_module(name, out_dir):
    """tests/module/NAME.c built against Debian's headers; SkipTest if they are not the
    booted kernel's."""
    release = re.search(r"vmlinuz-(.+)$", bootlib.kernel()).group(1)
    ko = subprocess.run([str(MODULE_BUILD), str(out_dir), "amd64", name], check=True,
                        capture_output=True, text=True).stdout.strip()
    vermagic = re.search(rb"vermagic=(\S+)", Path(ko).read_bytes()).group(1).decode()
    if vermagic != release:
        raise unittest.SkipTest(f"module built for {vermagic}, kernel under test is {release}")
    return ko


class LoadCounters(unittest.TestCase):
    """perf stat's default set (and more) per phase, inherited by the load's tasks."""

    @classmethod
    def setUpClass(cls):
        cls.r = bootlib.run("initbench.duration=1", "initbench.perf=default,minor-faults,cs:u,r00c0")

    def test_run_ok(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)

    def test_a_perf_record_per_phase(self):
        perf = [p for p in self.r.records("probe") if p["probe"] == "perf"]
        self.assertEqual([p["phase"] for p in perf], ["none", "fork"])
        for p in perf:
            self.assertTrue(p["supported"])
            self.assertEqual(p["scope"], "task")
            self.assertEqual(len(p["counters"]), 11)
            for c in p["counters"]:
                check_counter_entry(self, c)

    def test_fork_load_is_counted(self):
        fork = next(p for p in self.r.records("probe") if p["probe"] == "perf" and p["phase"] == "fork")
        c = by_event(fork["counters"])
        for name in ("task-clock", "context-switches", "page-faults", "minor-faults"):
            self.assertGreater(c[name]["value"], 0, name)
        # CPUs utilized is task-clock over the window's wall time, as perf stat prints it.
        utilized = c["task-clock"]["derived"]
        self.assertEqual(utilized["unit"], "CPUs utilized")
        self.assertAlmostEqual(utilized["value"], c["task-clock"]["value"] / (fork["elapsed_s"] * 1e9), places=6)
        self.assertEqual(c["page-faults"]["derived"]["unit"], "/sec")
        # The forked children's faults are in it: far more than init's own in the quiet phase.
        none = by_event(next(p for p in self.r.records("probe")
                             if p["probe"] == "perf" and p["phase"] == "none")["counters"])
        self.assertGreater(c["page-faults"]["value"], 3 * max(1, none["page-faults"]["value"]))

    def test_hardware_counters_count_or_say_why(self):
        fork = next(p for p in self.r.records("probe") if p["probe"] == "perf" and p["phase"] == "fork")
        c = by_event(fork["counters"])
        for name in ("cycles", "instructions", "branches", "branch-misses", "r00c0"):
            if c[name]["supported"]:
                self.assertGreater(c[name]["value"], 0, name)
            else:
                self.assertRegex(c[name]["reason"], r"errno \d+")


class CommandRepeat(unittest.TestCase):
    """A BusyBox command run 20 times under the counters, each run counted on its own."""

    RUNS = 20

    @classmethod
    def setUpClass(cls):
        # icount: guest time is instructions, so that the host's load (other boots, builds)
        # does not land in task-clock; the spread left is the guest's own.
        cls.r = bootlib.run('initbench.cmd="busybox find /sys/kernel -maxdepth 2"',
                            f"initbench.repeat={cls.RUNS}", "initbench.pin=0",
                            extra_args=["--clock", "icount"])

    def setUp(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        self.cmd = self.r.one("command")

    def test_runs(self):
        self.assertEqual(self.cmd["kind"], "exec")
        self.assertEqual(self.cmd["argv"], ["busybox", "find", "/sys/kernel", "-maxdepth", "2"])
        self.assertEqual(self.cmd["path"], "/bin/busybox")
        self.assertEqual(self.cmd["pin"], [0])
        self.assertEqual(len(self.cmd["runs"]), self.RUNS)
        self.assertTrue(all(r["exit"] == 0 for r in self.cmd["runs"]))
        self.assertIn("/sys/kernel/", self.cmd["output"])
        self.assertEqual(self.r.records("phase"), [], "command mode runs no phases")

    def test_printed_summary_shows_the_command(self):
        self.assertIn("command busybox find /sys/kernel -maxdepth 2  x20", self.r.stdout)
        self.assertRegex(self.r.stdout, r"\n  task-clock [0-9.e+]+ ns \( \+- [0-9.]+% \)")

    def test_statistics_as_perf_stat_r(self):
        c = by_event(self.cmd["counters"])
        for name in ("task-clock", "page-faults", "context-switches"):
            values = c[name]["values"]
            self.assertEqual(len(values), self.RUNS, name)
            self.assertTrue(all(isinstance(v, int) for v in values), name)
            mean, sd = statistics.mean(values), statistics.stdev(values)
            self.assertAlmostEqual(c[name]["mean"], mean, delta=1e-9 * max(1, mean))
            self.assertAlmostEqual(c[name]["stddev"], sd, delta=1e-9 * max(1, sd))
            if mean:
                self.assertAlmostEqual(c[name]["rel_stderr_pct"], 100 * sd / math.sqrt(self.RUNS) / mean, places=6)
        # Each run counted on its own: the same command gives similar counts every time.
        tc, pf = c["task-clock"]["values"], c["page-faults"]["values"]
        self.assertTrue(all(v > 0 for v in tc + pf))
        self.assertLess(statistics.stdev(tc) / statistics.mean(tc), 0.25, tc)
        self.assertLess(statistics.stdev(pf) / statistics.mean(pf), 0.1, pf)
        for entry in self.cmd["counters"]:
            check_counter_entry(self, entry)

    def test_elapsed_and_cpu_time_agree(self):
        elapsed = self.cmd["elapsed_s"]
        self.assertEqual(len(elapsed["values"]), self.RUNS)
        task_clock_s = by_event(self.cmd["counters"])["task-clock"]["mean"] / 1e9
        # One CPU: the command cannot run longer than the wall time of its runs.
        self.assertLessEqual(task_clock_s, elapsed["mean"] * 1.05)
        self.assertGreater(task_clock_s, elapsed["mean"] * 0.2)


class ModulePayload(unittest.TestCase):
    """The test module, built here against Debian's headers, packed with an experiment file,
    loaded with its parameters and unloaded on each of 10 repeats, counted on every CPU."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-module-")
        tmp = Path(cls.tmp.name)
        ko = build_module("initbench_test", tmp / "build")
        (tmp / "experiment.conf").write_text(
            "# page_frag-style: the module's work on a kthread bound to CPU 1\n"
            "module = /payload/modules/initbench_test.ko\n"
            "module.params = iterations=3000 cpu=1 label=hello\n"
            "repeat = 3\n"
            "perf = default\n"
            "perf.scope = system\n")
        packed = tmp / "packed.cpio.gz"
        p = subprocess.run([bootlib.INITBENCH, "pack", "--image", bootlib.IMAGE,
                            "--add", f"{ko}:/payload/modules/initbench_test.ko",
                            "--config", str(tmp / "experiment.conf"), "-o", str(packed)],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        cls.r = bootlib.run_image(packed, "initbench.repeat=10", extra_args=["--cpus", "2"])

    def setUp(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        self.cmd = self.r.one("command")

    def test_experiment_file_between_profile_and_cmdline(self):
        config = self.r.one("header")["config"]
        self.assertEqual(config["sources"]["module"], "profile:payload")
        self.assertEqual(config["sources"]["repeat"], "cmdline")
        self.assertEqual(config["values"]["repeat"], 10)
        self.assertEqual(config["profiles"], ["default", "payload"])

    def test_loaded_with_parameters_and_unloaded_every_time(self):
        self.assertEqual(self.cmd["kind"], "module")
        self.assertEqual(self.cmd["module_name"], "initbench_test")
        self.assertEqual(len(self.cmd["runs"]), 10)
        for run in self.cmd["runs"]:
            self.assertTrue(run["loaded"], run)
            self.assertTrue(run["unloaded"], run)
        params = self.cmd["params_read"]
        self.assertEqual(params["iterations"], "3000")
        self.assertEqual(params["cpu"], "1")
        self.assertEqual(params["label"], "hello")
        self.assertEqual(params["pages_done"], "3000")

    def test_counted_system_wide_per_cpu(self):
        self.assertEqual(self.cmd["scope"], "system")
        c = by_event(self.cmd["counters"])
        tc = c["task-clock"]
        self.assertEqual(len(tc["values"]), 10)
        self.assertTrue(all(v > 0 for v in tc["values"]))
        self.assertEqual(len(tc["per_cpu_mean"]), 2)
        self.assertAlmostEqual(tc["stddev"], statistics.stdev(tc["values"]), delta=1e-6 * tc["stddev"])
        # System-wide: the CPUs' shares add up to the whole.
        self.assertAlmostEqual(sum(tc["per_cpu_mean"]), tc["mean"], delta=1e-6 * tc["mean"])
        for entry in self.cmd["counters"]:
            check_counter_entry(self, entry)


PAGE_FRAG_KO = "/payload/page_frag_test.ko"


class PageFragProfile(unittest.TestCase):
    ctest_boots = 3
    """The page_frag profile end to end, with tests/module/page_frag_test.c: initbench's
    stand-in for the thread's module (6.1's page_frag API, the same parameters, push and pop
    kthreads over a ptr_ring, an init that always returns -EAGAIN). Three boots of one packed
    image, which also holds kmod's insmod:
      - the profile as shipped (its 18-CPU machine, CPUs 16 and 17), fewer fragments and runs,
        the parameters given as one shell argument with spaces;
      - the seed's exact form: kmod's insmod as the counted command;
      - BusyBox's insmod against kmod's, each init leaving one kernel log line."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-page-frag-")
        tmp = Path(cls.tmp.name)
        ko = build_module("page_frag_test", tmp / "build")
        image = tmp / "page_frag.cpio.gz"
        p = subprocess.run([bootlib.INITBENCH, "pack", "--image", bootlib.IMAGE,
                            "--add", f"{ko}:{PAGE_FRAG_KO}", "--program", "/usr/sbin/insmod",
                            "-o", str(image)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        cls.params = "test_push_cpu=16 test_pop_cpu=17 test_alloc_len=12 nr_test=100000"
        cls.profile = bootlib.run_image(image, "initbench.profile=page_frag", "initbench.repeat=3",
                                "initbench.module.params=" + cls.params)
        cls.exact = bootlib.run_image(image, "initbench.repeat=3", "initbench.perf=default",
                              f"initbench.cmd=/payload/bin/insmod {PAGE_FRAG_KO} test_push_cpu=0 "
                              "test_pop_cpu=1 test_alloc_len=12 nr_test=100000",
                              extra_args=["--cpus", "2"])
        cls.insmods = bootlib.run_image(image, f"initbench.cmd=sh -c 'insmod {PAGE_FRAG_KO} nr_test=1000 test_pop_cpu=1; "
                                f"/payload/bin/insmod {PAGE_FRAG_KO} nr_test=2000 test_pop_cpu=1; "
                                "dmesg | grep page_frag_test'", extra_args=["--cpus", "2"])

    def complete(self, r):
        self.assertEqual(r.code, 0, r.stdout + r.stderr + r.log[-3000:])
        assert_clean_end(self, r)
        self.assertEqual(r.records("error"), [])
        return r.one("command")

    def test_the_profile_on_its_machine(self):
        cmd = self.complete(self.profile)
        machine = self.profile.doc["host"]["machine"]
        self.assertEqual((machine["cpus"], machine["cpus_source"]), (18, "profile:page_frag"))
        # As many vCPUs as host CPUs or more, and few: one host thread in turn (a thread each froze here).
        argv = self.profile.doc["host"]["qemu_argv"]
        self.assertEqual(argv[argv.index("-accel") + 1], "tcg,thread=single" if os.cpu_count() <= 18 else "tcg")
        self.assertEqual([w for w in self.profile.records("warning") if w.get("what") == "machine"], [])
        # One shell argument with spaces arrives as one parameter, all of it.
        config = self.profile.one("header")["config"]
        self.assertEqual(config["values"]["module.params"], self.params)
        self.assertEqual(config["sources"]["module.params"], "cmdline")
        self.assertEqual((cmd["kind"], cmd["module"], cmd["params"]), ("module", PAGE_FRAG_KO, self.params))
        # Each run did the test (CPUs 16 and 17 exist, so no EINVAL) and ended in EAGAIN.
        self.assertEqual(len(cmd["runs"]), 3)
        for run in cmd["runs"]:
            self.assertEqual((run["loaded"], run["errno"]), (False, 11), run)
            self.assertGreater(run["elapsed_s"], 0)
        c = by_event(cmd["counters"])
        self.assertEqual([e["event"] for e in cmd["counters"]][:4],
                         ["task-clock", "context-switches", "cpu-migrations", "page-faults"])
        # The loading thread sleeps while the kthreads work: switched out at least once a run.
        self.assertTrue(all(v >= 1 for v in c["context-switches"]["values"]), c["context-switches"])
        self.assertTrue(all(v > 0 for v in c["task-clock"]["values"]))
        for event in ("cycles", "instructions"):  # no PMU under TCG: said, never a 0
            self.assertFalse(c[event]["supported"])
            self.assertIn("errno", c[event])
        for entry in cmd["counters"]:
            check_counter_entry(self, entry)

    def test_the_seeds_exact_form_counts_insmod(self):
        cmd = self.complete(self.exact)
        self.assertEqual((cmd["kind"], cmd["path"]), ("exec", "/payload/bin/insmod"))
        self.assertEqual([run["exit"] for run in cmd["runs"]], [1, 1, 1])
        self.assertIn("could not insert module " + PAGE_FRAG_KO + ": Resource temporarily unavailable",
                      cmd["output"])
        # The insmod process is the counted task: its own start-up faults pages in (the seed
        # counted 81), which the module form, one finit_module() from the init, does not.
        c = by_event(cmd["counters"])
        self.assertTrue(all(v > 10 for v in c["page-faults"]["values"]), c["page-faults"])
        self.assertTrue(all(v >= 1 for v in c["context-switches"]["values"]), c["context-switches"])
        for entry in cmd["counters"]:
            check_counter_entry(self, entry)

    def test_busybox_insmod_runs_the_init_twice_kmods_once(self):
        cmd = self.complete(self.insmods)
        inits = re.findall(r"page_frag_test: (\d+) fragments of 2048 bytes, push CPU 0, pop CPU 1: done",
                           cmd["output"])
        self.assertEqual(inits, ["1000", "1000", "2000"], cmd["output"])


class PageFragProfileWithoutModule(unittest.TestCase):
    """`initbench.profile=page_frag` on the base image, which has no page_frag_test.ko: one
    error record that names the module's path, then the end record and a clean power-off.
    --cpus 1 wins over the profile's 18-CPU machine (one short boot), and the results say so."""

    @classmethod
    def setUpClass(cls):
        cls.r = bootlib.run("initbench.profile=page_frag", extra_args=["--cpus", "1"])

    def test_exit_code_and_clean_end(self):
        self.assertEqual(self.r.code, 1, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        assert_clean_end(self, self.r)
        kinds = [e["kind"] for e in self.r.doc["log"]["kernel_events"]]
        self.assertNotIn("panic", kinds)
        self.assertNotIn("kill_init", kinds)

    def test_error_names_the_missing_module(self):
        errors = self.r.records("error")
        self.assertEqual(len(errors), 1, errors)
        self.assertEqual(errors[0]["what"], "module")
        self.assertIn("/payload/page_frag_test.ko", errors[0]["reason"])
        self.assertIn("No such file", errors[0]["reason"])
        self.assertIn("initbench pack --add FILE.ko:/payload/page_frag_test.ko", errors[0]["reason"])
        self.assertEqual(self.r.records("command"), [], "nothing was loaded, so nothing was counted")
        self.assertEqual(self.r.records("phase"), [], "a module experiment runs no phases")

    def test_the_profile_is_in_effect(self):
        config = self.r.one("header")["config"]
        self.assertEqual(config["values"]["module"], "/payload/page_frag_test.ko")
        self.assertEqual(config["values"]["repeat"], 200)
        self.assertEqual(config["sources"]["module.params"], "profile:page_frag")

    def test_the_machine_is_the_command_lines(self):
        machine = self.r.doc["host"]["machine"]
        self.assertEqual((machine["cpus"], machine["cpus_source"]), (1, "--cpus"))
        warnings = [w for w in self.r.records("warning") if w.get("what") == "machine"]
        self.assertEqual(len(warnings), 1, "the guest says it is not the profile's 18-CPU machine")
        self.assertIn("18 CPUs (profile:page_frag); this one has 1", warnings[0]["reason"])


if __name__ == "__main__":
    unittest.main()
