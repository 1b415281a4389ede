"""Boot tests of `initbench ab`: interleaved boots of two sides under the instruction-counting
clock, judged after every boot a side until decided, with what it leaves in its output
directory, a resumed A/A comparison, and a side whose boots fail.

The slowdown is real and kernel-side (`slub_debug=FZPU`, -75 % forks/s under icount); with the
layout fixed (`nokaslr norandmaps`) boots of one kernel repeat, so two boots a side decide."""
import json
import math
import os
import re
import shutil
import signal
import subprocess
import time
import unittest
from pathlib import Path

import bootlib
import limits

COMMON = ("--", "nokaslr", "norandmaps", "initbench.phases=fork", "initbench.duration=1",
          "initbench.rounds=2")


def ab(out, *args, boots, clock="icount", jobs=1):
    """`initbench ab` with --max-boots 2 and one boot at a time (or `jobs`): `boots` is how many
    it may start, each charged to the class's budget."""
    limit = 0
    waits = 0.0
    for _ in range(boots):
        limit = bootlib.boot_limit()
        waits += limits.boot_wait(limit)
    return subprocess.run(
        [bootlib.INITBENCH, "ab", "-o", str(out), "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE,
         "--clock", clock, "-j", str(jobs), "--max-boots", "2", "--timeout", f"{limit or limits.BOOT_S:g}",
         *args, *COMMON], capture_output=True, text=True, timeout=waits or limits.HOST_S)


class AbInterleaved(unittest.TestCase):
    ctest_boots = 13

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-ab-")
        cls.dir = Path(cls.tmp.name)
        cls.slub_args = ("--params", "", "--params", "slub_debug=FZPU", "--label", "base", "--label", "slub",
                         "--metric", "fork/ops_per_s")
        cls.slub = ab(cls.dir / "slub", *cls.slub_args, boots=4)
        # A/A: the base side's two boots become the first boot of each side of a new
        # directory; ab resumes from them and boots the other two (A B B A: B-002, A-002).
        aa = cls.dir / "aa" / "runs"
        aa.mkdir(parents=True)
        for i, side in ((1, "A"), (2, "B")):
            if (cls.dir / f"slub/runs/base-00{i}.json").exists():
                shutil.copy(cls.dir / f"slub/runs/base-00{i}.json", aa / f"{side}-001.json")
        cls.aa = ab(cls.dir / "aa", "--params", "", "--params", "", "--metric", "fork/ops_per_s", boots=2)
        # A mistake only the boot finds (the kernel has no such function); and a misspelled key,
        # refused before any boot.
        # --force: sides that differ in an initbench.* key are refused before a boot without it.
        cls.broken = ab(cls.dir / "broken", "--force", "--params", "", "--params",
                        "initbench.task_storage_churn.on=ib_no_such_function", boots=2)
        cls.typo = ab(cls.dir / "typo", "--params", "", "--params", "initbench.duraton=1", boots=0)
        cls.interrupted = cls.ctrl_c(cls.dir / "int")
        # Two boots at once on the wall clock: each side's boots go round both host CPUs.
        cls.wall = ab(cls.dir / "wall", "--params", "", "--params", "", "--metric", "fork/ops_per_s",
                      boots=4, clock="wall", jobs=2)

    @classmethod
    def ctrl_c(cls, out):
        """ab stopped by a terminal's Ctrl-C (SIGINT to its process group) during its first boot."""
        limit = bootlib.boot_limit()
        p = subprocess.Popen(
            [bootlib.INITBENCH, "ab", "-o", str(out), "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE,
             "--clock", "icount", "-j", "1", "--timeout", f"{limit:g}", "--params", "", "--params", "", *COMMON],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        first = p.stdout.readline()
        # The guest is under way once its console log has a line.
        log = out / "runs" / "A-001.log"
        for _ in range(int(limits.boot_wait(limit) * 10)):
            if log.exists() and log.stat().st_size > 0:
                break
            time.sleep(0.1)
        os.killpg(p.pid, signal.SIGINT)
        stdout, stderr = p.communicate(timeout=limits.boot_wait(limit))
        return subprocess.CompletedProcess(p.args, p.returncode, first + stdout, stderr)

    def test_slub_debug_is_different_after_two_boots_a_side(self):
        p = self.slub
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        order = [line.split()[2] for line in p.stdout.splitlines() if line.endswith(" started")]
        self.assertEqual(order, ["base-001.json", "slub-001.json", "slub-002.json", "base-002.json"],
                         "interleaved A B B A")
        self.assertIn("ab: look 1 of 1, 2 boots a side, alpha 0.05; fork/ops_per_s slub different", p.stdout)
        comparison = json.loads((self.dir / "slub/comparison.json").read_text())
        self.assertEqual(comparison["unit"], "run", "boots are the samples")
        self.assertTrue(comparison["ab"]["decided"])
        (verdict,) = comparison["ab"]["verdicts"]
        self.assertEqual((verdict["metric"], verdict["side"], verdict["verdict"]),
                         ("fork/ops_per_s", "slub", "different"))
        self.assertLess(verdict["pct"], -50)
        self.assertIn("* -", (self.dir / "slub/comparison.txt").read_text())
        self.assertIn("<html", (self.dir / "slub/report.html").read_text())
        runs = sorted(f.name for f in (self.dir / "slub/runs").glob("*.json"))
        self.assertEqual(runs, ["base-001.json", "base-002.json", "slub-001.json", "slub-002.json"])
        plan = json.loads((self.dir / "slub/ab.json").read_text())
        self.assertEqual(plan["sides"][1]["params"][-1], "slub_debug=FZPU")
        self.assertEqual(comparison["ab"]["method"], "welch", "icount's test")
        # -j 1 and a guest of one CPU: every boot pinned to the same host CPU, the last one ab
        # may use (host CPUs can differ in speed; a boot left to float lands on either).
        last = max(os.sched_getaffinity(0))
        for name in runs:
            doc = json.loads((self.dir / "slub/runs" / name).read_text())
            self.assertEqual(doc["host"]["host_cpus"], [last], name)

    def test_boots_at_once_on_the_wall_clock_go_round_the_cpus(self):
        p = self.wall
        self.assertIn(p.returncode, (0, 4), p.stdout + p.stderr)
        self.assertIn("-j 2 on the wall clock: host CPUs can differ in speed, so each side's boots are spread",
                      p.stderr)
        cpus = sorted(os.sched_getaffinity(0))
        self.assertGreaterEqual(len(cpus), 2, "this test needs two host CPUs")
        last, other = [cpus[-1]], [cpus[-2]]
        placed = {name: json.loads((self.dir / "wall/runs" / name).read_text())["host"]["host_cpus"]
                  for name in ("A-001.json", "B-001.json", "B-002.json", "A-002.json")}
        self.assertEqual(placed, {"A-001.json": last, "B-001.json": other, "B-002.json": last, "A-002.json": other},
                         "each side once on each CPU")
        self.assertEqual(len(re.findall(r"^ab: look ", p.stdout, re.M)), 1, "one look, at 2 boots a side")
        comparison = json.loads((self.dir / "wall/comparison.json").read_text())
        section = comparison["ab"]
        self.assertEqual((section["slots"], section["look_every"], section["boots_a_side"], section["method"]),
                         ("fixed", 2, 2, "permutation"))
        # Every side ran on both CPUs: the permutation test permutes within each.
        self.assertEqual(comparison["strata"], sorted([str(last[0]), str(other[0])]))
        (metric,) = [m for m in comparison["metrics"] if m["id"] == "fork/ops_per_s"]
        self.assertEqual(metric["sides"][1]["change"]["strata"], 2)
        self.assertIn("permuted within each host CPU set the boots ran on", comparison["method_text"])

    def test_the_same_boots_judged_pair_by_pair(self):
        """--method paired on the wall run's boots, copied: ab resumes from them (no boot) and
        judges boot i of B against boot i of A by their log ratios."""
        shutil.copytree(self.dir / "wall" / "runs", self.dir / "paired" / "runs")
        p = ab(self.dir / "paired", "--params", "", "--params", "", "--metric", "fork/ops_per_s",
               "--method", "paired", boots=0, clock="wall", jobs=2)
        self.assertIn(p.returncode, (0, 4), p.stdout + p.stderr)  # an A/A: SAME or UNKNOWN, never DIFFERENT
        self.assertIn("resumed with 2 boot(s) a side", p.stdout)
        self.assertNotIn("started", p.stdout)
        comparison = json.loads((self.dir / "paired/comparison.json").read_text())
        self.assertEqual(comparison["ab"]["method"], "paired")
        self.assertIn("paired t-test of the log ratios", comparison["method_text"])

        (metric,) = [m for m in comparison["metrics"] if m["id"] == "fork/ops_per_s"]
        means = {side: metric["sides"][k]["samples"] for k, side in enumerate("AB")}
        self.assertEqual(len(means["A"]), 2)
        ratios = [b / a for a, b in zip(means["A"], means["B"])]
        self.assertAlmostEqual(metric["sides"][1]["change"]["pct"], (math.sqrt(ratios[0] * ratios[1]) - 1) * 100,
                               places=6)

    def test_a_rerun_resumes_and_boots_nothing_more(self):
        p = subprocess.run([bootlib.INITBENCH, "ab", "-o", str(self.dir / "slub"), "--kernel", bootlib.kernel(),
                            "--image", bootlib.IMAGE, "--clock", "icount", "-j", "1", "--max-boots", "2",
                            *self.slub_args, *COMMON], capture_output=True, text=True, timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("resumed with 2 boot(s) a side", p.stdout)
        self.assertNotIn("started", p.stdout)

    def test_another_experiment_in_the_directory_is_refused(self):
        p = subprocess.run([bootlib.INITBENCH, "ab", "-o", str(self.dir / "slub"), "--kernel", bootlib.kernel(),
                            "--image", bootlib.IMAGE, "--clock", "icount", "--params", "", "--params", "slub_debug=P",
                            "--label", "base", "--label", "slub", "--metric", "fork/ops_per_s", *COMMON], capture_output=True, text=True, timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        # The field that differs, not the plans' JSON.
        self.assertRegex(p.stderr, r'holds another experiment \((.*; )?sides\[1\]\.params\[\d+\]: "slub_debug=FZPU" there, '
                                   r'"slub_debug=P" now')

    def test_one_kernel_against_itself_is_never_different(self):
        p = self.aa
        self.assertIn(p.returncode, (0, 4), p.stdout + p.stderr)
        self.assertIn("ab: resumed with 1 boot(s) a side", p.stdout)
        started = [line.split()[2] for line in p.stdout.splitlines() if line.endswith(" started")]
        self.assertEqual(started, ["B-002.json", "A-002.json"])
        comparison = json.loads((self.dir / "aa/comparison.json").read_text())
        (verdict,) = comparison["ab"]["verdicts"]
        self.assertNotEqual(verdict["verdict"], "different", verdict)
        self.assertLess(abs(verdict["pct"]), 1, "a fixed layout repeats under icount")

    def test_a_failed_boot_fails_ab_and_names_its_error_record(self):
        p = self.broken
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"ab: FAIL B-001\.json: error record: probe task_storage_churn.*"
                                   r"ib_no_such_function is not a function")
        self.assertFalse((self.dir / "broken/comparison.json").exists(), "no verdict from a failed side")

    def test_a_misspelled_key_is_refused_before_any_boot(self):
        p = self.typo
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("initbench ab: side B: cmdline: initbench.duraton=1: unknown key (did you mean "
                      "'initbench.duration'?)", p.stderr)
        self.assertEqual(list(self.dir.glob("typo/runs/*")), [], "nothing booted")

    def test_ctrl_c_keeps_what_finished_and_discards_the_cut_boot(self):
        p = self.interrupted
        self.assertEqual(p.returncode, 130, p.stdout + p.stderr)
        self.assertIn("ab: interrupted: A 0, B 0 finished boot(s) kept; the same command resumes", p.stdout)
        self.assertIn("ab: no comparison of what finished: a side has no finished boot", p.stdout)
        self.assertEqual(list((self.dir / "int/runs").glob("*.json")), [], "the cut boot is booted again")
        self.assertTrue((self.dir / "int/ab.json").exists(), "the plan stays for the rerun")


class AbCommandLine(unittest.TestCase):
    """Refusals before any boot."""
    ctest_boots = 0

    def test_one_side_is_refused(self):
        p = subprocess.run([bootlib.INITBENCH, "ab", "-o", "/dev/null/x", "--kernel", bootlib.kernel(),
                            "--image", bootlib.IMAGE], capture_output=True, text=True, timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("ab needs two sides or more", p.stderr)

    def test_sides_of_different_experiments_need_force(self):
        """Sides whose initbench.* settings differ are refused before a boot (exit 3), naming
        the setting; --force goes on to the next check (a directory that cannot be made)."""
        def ab_with(*extra):
            return subprocess.run([bootlib.INITBENCH, "ab", "-o", "/dev/null/x", "--kernel", bootlib.kernel(),
                                   "--image", bootlib.IMAGE, "--params", "", "--params", "initbench.fork.spin_us=100",
                                   *extra, *COMMON], capture_output=True, text=True, timeout=limits.HOST_S)
        p = ab_with()
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("different experiments: B sets initbench.fork.spin_us=100, A does not (--force", p.stderr)
        p = ab_with("--force")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertNotIn("different experiments", p.stderr)
        self.assertIn("/dev/null/x", p.stderr)


if __name__ == "__main__":
    unittest.main()
