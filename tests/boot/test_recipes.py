"""The docs' recipes, run as written (tests/boot/recipes.py finds them by their markers).

README's bisection runs in a kernel tree of 16 commits whose `make bzImage` links a real
kernel to arch/x86/boot/bzImage: the minimal 6.1 (scripts/build-kernel.sh tiny) up to commit
10, Debian's 6.1 from commit 11 on, whose fork path runs more instructions. Nothing in the
recipe is replaced: the tree has the tag v6.1 and a Makefile, and `initbench` is on PATH."""
import json
import os
import shutil
import subprocess
import unittest
from pathlib import Path

import bootlib
import limits
import recipes
from test_tiny_kernel import tiny_kernel


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def kernel_tree(repo, kernels):
    """A git history whose commit n (from 1) builds kernels[n - 1] as arch/x86/boot/bzImage;
    the first commit is tagged v6.1. Returns the commits' hashes."""
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.invalid")
    git(repo, "config", "user.name", "initbench test")
    (repo / "Makefile").write_text("bzImage:\n\tmkdir -p arch/x86/boot\n"
                                   "\tln -sf \"$$(cat kernel.path)\" arch/x86/boot/bzImage\n")
    (repo / ".gitignore").write_text("arch/\n")
    commits = []
    for n, kernel in enumerate(kernels, 1):
        (repo / "kernel.path").write_text(kernel + "\n")
        (repo / "CHANGES").write_text(f"change {n}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"change {n}")
        commits.append(git(repo, "rev-parse", "HEAD"))
    git(repo, "tag", "v6.1", commits[0])
    return commits


def in_path():
    return dict(os.environ, PATH=f"{Path(bootlib.INITBENCH).parent}:{os.environ['PATH']}")


class ReadmeBisect(unittest.TestCase):
    """README's `initbench bisect` recipe names the first bad commit of 16, one boot a step,
    after checking both ends; set up so that it cannot decide, it says so before a boot; with
    a limit the bad end does not reach, it stops after the ends and bisects nothing."""
    # The recipe: the good end twice, the bad end once, then at most 4 steps of one boot (and
    # a skip's second look); the wide limit's good and bad ends.
    ctest_boots = 12
    FIRST_BAD = 11

    @classmethod
    def setUpClass(cls):
        good, bad = tiny_kernel("tiny"), bootlib.kernel()
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-recipe-")
        cls.repo = Path(cls.tmp.name) / "linux"
        cls.commits = kernel_tree(cls.repo, [good if n < cls.FIRST_BAD else bad for n in range(1, 17)])
        cls.recipe = subprocess.run(["bash", "-euo", "pipefail", "-c", recipes.block("bisect")], cwd=cls.repo,
                                    env=in_path(), capture_output=True, text=True,
                                    timeout=limits.boot_budget(8))
        cls.log = git(cls.repo, "bisect", "log")
        git(cls.repo, "bisect", "reset")
        cls.saved = cls.repo / ".git/initbench-bisect"
        cls.baseline = sorted(str(p) for p in cls.saved.glob("good-*.json"))
        cls.steps_saved = sorted(cls.saved.glob("step-*.json"))  # before the other tests add theirs

    def bisect(self, *options):
        """The recipe's command with other options, its baseline given."""
        return subprocess.run(
            ["initbench", "bisect", "v6.1", "HEAD", "--kernel", "arch/x86/boot/bzImage", "--params-file",
             "../fork.params", "--metric", "fork/ops_per_s", "--clock", "icount", *options, "--", "make", "bzImage"],
            cwd=self.repo, env=in_path(), capture_output=True, text=True, timeout=limits.boot_budget(2))

    def test_names_the_first_bad_commit_after_checking_both_ends(self):
        out = self.recipe.stdout
        self.assertEqual(self.recipe.returncode, 0, out + self.recipe.stderr)
        first_bad = self.commits[self.FIRST_BAD - 1]
        self.assertIn(f"bisect: first bad commit: [{first_bad}] change {self.FIRST_BAD}", out)
        order = [out.find("bisect: the good end v6.1: building it and booting it 2 times"),
                 out.find("bisect: the bad end HEAD: a step, which must be bad"),
                 out.find("bisect: both ends are as the rule needs"),
                 out.find("bisect: first bad commit")]
        self.assertTrue(all(i >= 0 for i in order) and order == sorted(order), (order, out))
        self.assertEqual(len(self.baseline), 2, "the good end booted twice, kept")

    def test_every_step_decided_on_one_boot(self):
        self.assertNotIn("# skip", self.log)
        steps = [line for line in self.recipe.stdout.splitlines() if line.startswith("bisect-step: fork/")]
        self.assertGreaterEqual(len(steps), 3, self.recipe.stdout)  # the bad end and >= 2 of 16
        self.assertTrue(all("(n=1) vs baseline" in s and "(n=2)" in s for s in steps), steps)
        self.assertEqual(len(self.steps_saved), len(steps))

    def test_a_baseline_of_one_boot_is_refused_before_any_build(self):
        shutil.rmtree(self.repo / "arch", ignore_errors=True)
        p = self.bisect("--max-change", "-3%", "--baseline", self.baseline[0])
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("bisect-step: abort: this setup cannot decide fork/ops_per_s: the baseline is 1 boot(s)",
                      p.stdout)
        self.assertIn("boot the good kernel twice or more", p.stdout)
        self.assertIn("bisect: the good end v6.1 is not judged (an abort)", p.stdout)
        self.assertNotIn("boot 1", p.stdout)
        self.assertFalse((self.repo / "arch").exists(), "nothing was built")

    def test_a_bad_end_inside_the_limit_stops_the_bisection(self):
        p = self.bisect("--max-change", "-90%", "--baseline", ",".join(self.baseline))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("bisect: the good end v6.1: a step, which must be good", p.stdout)
        self.assertIn("bisect: the bad end HEAD is good by this rule (above), not bad: git bisect would "
                      "name HEAD itself without testing it; nothing was bisected", p.stdout)
        # The change it measured is on the bad end's line, inside the wide limit.
        self.assertRegex(p.stdout, r"good; note: a change of -\d+\.\d\d% was measured")
        self.assertNotIn("first bad commit", p.stdout)
        self.assertNotEqual(subprocess.run(["git", "bisect", "log"], cwd=self.repo, capture_output=True).returncode,
                            0, "no bisection was started")

    def test_the_saved_boots_compare(self):
        bad = [p for p in self.steps_saved
               if json.loads(p.read_text())["records"][0]["kernel"]["build_id"] != self.good_build_id()]
        self.assertTrue(bad)
        p = subprocess.run([bootlib.INITBENCH, "compare", ",".join(self.baseline), str(bad[0]), "--unit", "run",
                            "--method", "threshold", "--min-effect", "3", "--fail-on", "fork/ops_per_s:-3%"],
                           capture_output=True, text=True, timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("FAIL fork/ops_per_s:-3%", p.stderr)

    def good_build_id(self):
        return json.loads(Path(self.baseline[0]).read_text())["records"][0]["kernel"]["build_id"]


if __name__ == "__main__":
    unittest.main()
