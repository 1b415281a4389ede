"""Boot tests of `initbench compare` and `initbench bisect-step` under QEMU's
instruction-counting clock, run as users run them (the whole bisection, README's recipe:
test_recipes.py).

The experiment is a fork load with `nokaslr norandmaps`: with the address-space layout fixed,
the icount clock gives the same fork rate on every boot of a kernel (README, "Deterministic timing"), so one
boot per bisect step decides. The slowdown is real and kernel-side: `slub_debug=FZPU`."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import bootlib
import limits

# A fixed layout makes icount figures repeat across boots, not only across rounds.
STEADY = ["nokaslr", "norandmaps"]
FORK = ["initbench.phases=fork", "initbench.duration=1"]


def initbench(*args, cwd=None, timeout=limits.HOST_S):
    return subprocess.run([bootlib.INITBENCH, *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def booting(*args, cwd=None):
    """An initbench command that boots once (run, bisect-step): its --timeout charged."""
    limit = bootlib.boot_limit()
    return initbench(*args[:1], "--timeout", f"{limit:g}", *args[1:], cwd=cwd,
                     timeout=limits.boot_wait(limit))


def compare_json(*args):
    p = initbench("compare", "--format", "json", *args)
    return p, (json.loads(p.stdout) if p.stdout.strip() else {})


class CompareSameKernel(unittest.TestCase):
    """Two runs of the same kernel, 5 rounds each, are not flagged at default settings; a
    third with a misspelled key fails the gate; a bisect step whose boot has an error record
    is a skip, and one with the misspelling aborts before its boot."""
    ctest_boots = 4
    EXPERIMENT = (*STEADY, "initbench.duration=1", "initbench.rounds=5")
    TYPO = "initbench.duraton=1"
    # A mistake the host cannot see: the kernel has no such function (an error record).
    BROKEN = "initbench.task_storage_churn.on=ib_no_such_function"

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-aa-")
        cls.files = []
        # The typo is booted past the host's check, as a run written by hand would be.
        for name, extra, args in (("a", (), ()), ("b", (), ()), ("typo", (cls.TYPO,), ("--no-host-check",))):
            r = bootlib.run(*cls.EXPERIMENT, *extra, extra_args=("--clock", "icount", *args), workdir=cls.tmp.name)
            path = Path(cls.tmp.name) / f"{name}.json"
            path.write_text(json.dumps(r.doc))
            cls.files.append((r, str(path)))
        cls.typo = cls.files.pop()
        # bisect-step against the good run: its candidate's boot has an error record; and the
        # misspelling, refused before any boot.
        step = ("bisect-step", "--accel", "tcg", "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE, "--metric", "fork/ops_per_s",
                "--baseline", f"{cls.files[0][1]},{cls.files[1][1]}", "--max-change", "-5%")
        cls.step = booting(*step, *[f"--param={p}" for p in (*cls.EXPERIMENT, cls.BROKEN)], "--", "true",
                           cwd=cls.tmp.name)
        cls.typo_step = initbench(*step, *[f"--param={p}" for p in (*cls.EXPERIMENT, cls.TYPO)], "--", "true",
                                  cwd=cls.tmp.name)

    def test_runs_complete_on_the_icount_clock(self):
        for r, _ in self.files:
            self.assertEqual(r.code, 0, r.stdout + r.stderr)
            self.assertEqual(r.doc["host"]["clock"], "icount")
            self.assertIn("-icount", r.doc["host"]["qemu_argv"])

    def test_nothing_flagged(self):
        (_, a), (_, b) = self.files
        p, report = compare_json("--fail-on", "*:5%", a, b)  # options before the sides too
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertGreater(len(report["metrics"]), 3, "phase and probe metrics were found")
        ops = next(m for m in report["metrics"] if m["id"] == "fork/ops_per_s")
        self.assertEqual(ops["sides"][0]["n"], 5)
        self.assertEqual(ops["sides"][1]["n"], 5)
        flagged = [m["id"] for m in report["metrics"]
                   if any(s.get("change", {}).get("significant") for s in m["sides"])]
        self.assertEqual(flagged, [])
        # Same kernel, image and parameters under two labels: the user is told.
        self.assertTrue(any("same kernel build" in w for w in report["warnings"]))

    def test_a_misspelled_key_fails_the_gate(self):
        # The user's case: the run with the typo has the same experiment (the unknown key is
        # not a setting) and no fork phase at all. The rule alone could never fire.
        (_, good), _ = self.files
        r, typo = self.typo
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        p = initbench("compare", good, typo, "--fail-on", "fork/ops_per_s:-5%")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertRegex(p.stderr, r"FAIL typo: .*typo\.json: error record: config \(initbench\.duraton=1\): "
                                   r"unknown key")
        self.assertIn("FAIL fork/ops_per_s:-5%: fork/ops_per_s is missing on typo", p.stderr)
        # The warning about the same kernel says which parameters it compared.
        self.assertNotIn("the same kernel parameters:", p.stdout)
        p = initbench("compare", good, typo, "--fail-on", "fork/ops_per_s:-5%", "--allow-missing")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_bisect_step_with_error_records_is_a_skip_and_a_typo_an_abort(self):
        self.assertEqual(self.step.returncode, 125, self.step.stdout + self.step.stderr)
        self.assertRegex(self.step.stdout, r"skip: boot 1 of 1: errors \(\d+ error record\(s\)\), the first: "
                                           r"probe task_storage_churn.*ib_no_such_function is not a function")
        # A misspelled key is wrong at every commit: the bisection stops before a boot.
        p = self.typo_step
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        self.assertIn("initbench bisect-step: cmdline: initbench.duraton=1: unknown key (did you mean "
                      "'initbench.duration'?)", p.stderr)
        self.assertIn("bisect-step: abort: the experiment's parameters are wrong at every commit", p.stdout)
        self.assertNotIn("boot 1", p.stdout)

    def test_same_file_twice_is_a_reused_run(self):
        (_, a), _ = self.files
        p, report = compare_json(a, a)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(any("same run id" in w for w in report["warnings"]))

    def test_refuses_mixing_with_wall_clock_results(self):
        (r, a), _ = self.files
        wall = dict(r.doc, host=dict(r.doc["host"], clock="wall"))
        path = Path(self.tmp.name) / "wall.json"
        path.write_text(json.dumps(wall))
        p = initbench("compare", a, str(path), "--force")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("different clocks", p.stderr)


class BisectStepMoreBoots(unittest.TestCase):
    """bisect-step --baseline-kernel --max-boots: the good kernel booted beside the step; the
    first pair cannot decide (one boot a side: no spread to judge by), so one more of each is
    booted, and the two pairs decide. Against the one boot of --baseline alone the same step
    is refused before its build: one boot is no baseline."""
    ctest_boots = 5  # the baseline, then 2 of each interleaved
    EXPERIMENT = (*STEADY, *FORK, "initbench.rounds=1")

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-more-")
        base = bootlib.run(*cls.EXPERIMENT, extra_args=("--clock", "icount"), workdir=cls.tmp.name)
        cls.baseline = Path(cls.tmp.name) / "baseline.json"
        cls.baseline.write_text(json.dumps(base.doc))
        limit = [bootlib.boot_limit() for _ in range(4)][0]
        cls.saved = Path(cls.tmp.name) / "steps"
        cls.step = ("bisect-step", "--accel", "tcg", "--timeout", f"{limit:g}", "--kernel", bootlib.kernel(),
                    "--image", bootlib.IMAGE, *[f"--param={p}" for p in (*cls.EXPERIMENT, "slub_debug=FZPU")],
                    "--metric", "fork/ops_per_s", "--baseline", str(cls.baseline), "--max-change", "-15%")
        # --baseline-kernel: the good kernel (here the same one without slub_debug) booted
        # beside the step, interleaved; its boots are the baseline.
        base_params = Path(cls.tmp.name) / "good.params"
        base_params.write_text(" ".join(cls.EXPERIMENT) + "\n")
        cls.interleaved = initbench(
            *cls.step, "--baseline-kernel", bootlib.kernel(), "--baseline-params-file", str(base_params),
            "--boots", "1", "--max-boots", "2", "--save-dir", str(cls.saved), "--",
            "sh", "-c", "grep Cpus_allowed_list: /proc/self/status > build-affinity",
            cwd=cls.tmp.name, timeout=4 * limits.boot_wait(limit))

    def test_one_baseline_boot_is_refused_before_the_build(self):
        p = initbench(*self.step, "--max-boots", "3", "--", "touch", "built", cwd=self.tmp.name)
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        self.assertIn("bisect-step: abort: this setup cannot decide fork/ops_per_s: the baseline is 1 boot(s)",
                      p.stdout)
        self.assertFalse((Path(self.tmp.name) / "built").exists())

    def test_baseline_kernel_is_booted_interleaved_and_is_the_baseline(self):
        p = self.interleaved
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"bisect-step: look 1 of 2: fork/ops_per_s \[icount\]: one boot a side: no spread.*; "
                                   r"one more boot of each")
        # Judged against its own two baseline boots, not the one of --baseline.
        self.assertRegex(p.stdout, r"bisect-step: fork/ops_per_s \[icount\]: mean [\d.]+ \(n=2\) vs baseline "
                                   r"[\d.]+ \(n=2\): -7\d\.\d\d%.*: DIFFERENT, and below -15\.00% \(the paired "
                                   r"test, middle 2 of 2 pairs: -7\d\.\d\d%, p = [\d.e-]+\), bad")
        # Its boots are pairs, judged by their paired test too.
        self.assertIn("good when the paired test puts it above", p.stdout)
        self.assertIn("the baseline's '", p.stdout, "the parameters that differ are named")
        saved = sorted(self.saved.glob("*.json"), key=lambda f: f.stat().st_mtime_ns)
        self.assertEqual([f.name for f in saved], ["baseline-001-boot1.json", "step-001-boot1.json",
                                                   "step-001-boot2.json", "baseline-001-boot2.json"])
        for f in saved:
            cmdline = json.loads(f.read_text())["records"][0]["kernel"]["cmdline"]
            self.assertEqual("slub_debug=FZPU" in cmdline.split(), f.name.startswith("step"), f.name)
        # Every boot of both kernels pinned to the same host CPU, the last one (host CPUs can
        # differ in speed); the build before them kept every CPU.
        last = max(os.sched_getaffinity(0))
        self.assertEqual({f.name: json.loads(f.read_text())["host"]["host_cpus"] for f in saved},
                         {f.name: [last] for f in saved})
        mine = [l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("Cpus_allowed_list:")]
        self.assertEqual((Path(self.tmp.name) / "build-affinity").read_text().splitlines(), mine)


class BisectStepExitCodes(unittest.TestCase):
    """A broken build is a skip (125), never bad (1); bisect-step's own errors abort (>= 128).
    No kernel is booted here."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="initbench-step-")
        self.addCleanup(self.tmp.cleanup)

    def step(self, *args):
        return initbench("bisect-step", "--kernel", str(Path(self.tmp.name) / "bzImage"),
                         "--image", bootlib.IMAGE, *args, cwd=self.tmp.name)

    def test_failing_build_is_a_skip(self):
        p = self.step("--metric", "fork/ops_per_s", "--threshold", "<10", "--", "false")
        self.assertEqual(p.returncode, 125, p.stdout + p.stderr)
        self.assertIn("the build exited with 1", p.stdout)

    def test_missing_build_tool_and_missing_kernel_are_skips(self):
        p = self.step("--metric", "x", "--threshold", "<10", "--", "./no-such-build-script")
        self.assertEqual(p.returncode, 125, p.stdout + p.stderr)
        p = self.step("--metric", "x", "--threshold", "<10", "--", "true")
        self.assertEqual(p.returncode, 125, p.stdout + p.stderr)
        self.assertIn("no kernel", p.stdout)

    def test_build_runs_as_argv_not_through_a_shell(self):
        marker = Path(self.tmp.name) / "ran"
        p = self.step("--metric", "x", "--threshold", "<10", "--",
                      "touch", f"{marker}; false")
        self.assertEqual(p.returncode, 125, p.stdout + p.stderr)  # built, but no kernel
        self.assertTrue(Path(f"{marker}; false").exists(), "one argument, one file name")
        self.assertFalse(marker.exists())

    def test_unreadable_params_file_is_a_skip_that_says_why(self):
        # Built (a real kernel in place), then the parameters file is missing: open's errno.
        p = self.step("--metric", "x", "--threshold", "<10", "--params-file", "missing.params",
                      "--", "cp", bootlib.kernel(), "bzImage")
        self.assertEqual(p.returncode, 125, p.stdout + p.stderr)
        self.assertIn("skip: cannot read the parameters file: open missing.params: No such file or directory",
                      p.stdout)
        # A directory opens, and read as a stream it gave no words: a boot without parameters.
        Path(self.tmp.name, "params.d").mkdir()
        p = self.step("--metric", "x", "--threshold", "<10", "--params-file", "params.d",
                      "--", "cp", bootlib.kernel(), "bzImage")
        self.assertEqual(p.returncode, 125, p.stdout + p.stderr)
        self.assertIn("skip: cannot read the parameters file: read params.d: Is a directory", p.stdout)

    def test_own_errors_abort(self):
        self.assertEqual(initbench("bisect-step").returncode, 128)
        self.assertEqual(self.step("--metric", "x", "--bogus").returncode, 128)
        p = self.step("--metric", "x", "--", "true")  # neither baseline nor threshold
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        p = self.step("--metric", "x", "--baseline", "/no/such.json", "--", "true")
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        p = self.step("--metric", "x", "--threshold", "<1", "--clock", "icount", "--cpus", "2")
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)

    def test_baseline_kernel_refusals_abort_and_say_why(self):
        p = self.step("--metric", "x", "--threshold", "<1", "--baseline-kernel", bootlib.kernel(), "--", "true")
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        self.assertIn("--baseline-kernel goes with --baseline", p.stdout)
        p = self.step("--metric", "x", "--threshold", "<1", "--baseline-params-file", "good.params", "--", "true")
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        self.assertIn("--baseline-params-file goes with --baseline-kernel", p.stdout)
        p = self.step("--metric", "x", "--baseline", "/no/such.json", "--baseline-kernel", "/etc/passwd", "--", "true")
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        self.assertIn("--baseline-kernel /etc/passwd: ", p.stdout)


class BisectStepArm64(unittest.TestCase):
    """`bisect-step --arch aarch64` boots Debian's arm64 kernel with the aarch64 image; under
    icount one boot decides."""
    ctest_arch = "aarch64"

    def test_arm64_step_decides(self):
        with tempfile.TemporaryDirectory(prefix="initbench-step-") as tmp:
            kernel = Path(tmp) / "Image"
            shutil.copy(bootlib.fetch_kernel("arm64"), kernel)
            p = booting("bisect-step", "--arch", "aarch64", "--kernel", str(kernel),
                          "--image", bootlib.IMAGE_AARCH64, "--param", "initbench.duration=1",
                          "--metric", "fork/ops_per_s", "--threshold", "<1", "--clock", "icount",
                          "--save-dir", tmp, "--", "true", cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("[icount]", p.stdout)
            saved = json.loads(next(Path(tmp).glob("step-*.json")).read_text())
            header = [r for r in saved["records"] if r["type"] == "header"][0]
            self.assertEqual(header["arch"], "aarch64")


if __name__ == "__main__":
    unittest.main()
