"""Boot tests of a tracer-like background command on Debian's 6.1 kernel: the phases wait for
its ready text (initbench.background.ready), each window is marked in its output and
signalled (background.window_signal), and its output comes back in a background record
(background.record). The tracer is a BusyBox shell script; scripts/bench-probes.py does the
same with bpftrace."""
import json
import unittest
from pathlib import Path

import bootlib
from test_faults import pack

# Answers SIGUSR1 with a line (when its short sleep ends), and is ready only after a second.
TRACER = """trap 'echo answer' USR1
sleep 1
echo tracer-ready
while :; do sleep 0.05; done
"""
EXPERIMENT = """phases = none,fork
duration = 1
workers = 1
background = sh /payload/bg/tracer.sh
background.ready = tracer-ready
background.window_signal = USR1
background.record = 1
"""


class BackgroundTracer(unittest.TestCase):
    """Three boots: the tracer above, one that exits before it is ready, and one whose program
    cannot be executed (a script packed without its execute bit)."""
    ctest_boots = 3

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-background-")
        ok_dir, fail_dir = Path(cls.tmp.name) / "ok", Path(cls.tmp.name) / "fail"
        ok_dir.mkdir()
        fail_dir.mkdir()
        image = pack(ok_dir, {"/payload/bg/tracer.sh": TRACER}, EXPERIMENT)
        cls.r = bootlib.run_image(image, workdir=ok_dir)
        image = pack(fail_dir, {"/payload/bg/fail.sh": "echo cannot attach\nexit 3\n"},
                     "phases = none\nduration = 1\nbackground = sh /payload/bg/fail.sh\n"
                     "background.ready = tracer-ready\nbackground.record = 1\n")
        cls.fail = bootlib.run_image(image, workdir=fail_dir)
        noexec_dir = Path(cls.tmp.name) / "noexec"
        noexec_dir.mkdir()
        image = pack(noexec_dir, {"/payload/bg/fail.sh": "exit 3\n"},
                     "phases = none\nduration = 1\nbackground = /payload/bg/fail.sh\n")
        cls.noexec = bootlib.run_image(image, workdir=noexec_dir)

    def lines(self):
        out = []
        for line in self.r.one("background")["output"].splitlines():
            out.append(json.loads(line) if line.startswith("{") else line)
        return out

    def test_phases_run_after_the_tracer_is_ready(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        self.assertEqual(self.r.records("error"), [])
        self.assertEqual([p["phase"] for p in self.r.records("phase")], ["none", "fork"])
        bg = self.r.one("background")
        self.assertEqual(bg["ready"], "tracer-ready")
        self.assertGreaterEqual(bg["ready_s"], 1.0)
        self.assertEqual(self.lines()[0], "tracer-ready")
        for p in self.r.records("phase"):
            self.assertEqual(p["tasks"]["leftover"], 0, "the tracer counted as left behind")

    def test_each_window_marked_then_answered(self):
        bg = self.r.one("background")
        self.assertEqual(bg["window_signal"], "USR1")
        self.assertEqual(bg["marks"], 4)
        self.assertEqual(bg["ended"], "killed at the end of the run")
        lines = self.lines()[1:]
        marks = [(m["initbench"], m["phase"], m["round"]) for m in lines if isinstance(m, dict)]
        self.assertEqual(marks, [("window_open", "none", 0), ("window_close", "none", 0),
                                 ("window_open", "fork", 0), ("window_close", "fork", 0)])
        # Every mark is answered before the next one (the init waits for the answer to a close).
        self.assertEqual([x if isinstance(x, str) else "mark" for x in lines], ["mark", "answer"] * 4)
        opened = {m["phase"]: m["t"] for m in lines if isinstance(m, dict) and m["initbench"] == "window_open"}
        closed = {m["phase"]: m["t"] for m in lines if isinstance(m, dict) and m["initbench"] == "window_close"}
        for phase in self.r.records("phase"):
            with self.subTest(phase=phase["phase"]):
                # Each mark follows its snapshot by however long the init takes to write it,
                # which a busy TCG host stretches: the window's length, give or take that.
                self.assertAlmostEqual(closed[phase["phase"]] - opened[phase["phase"]], phase["duration_s"], delta=0.5)

    def only_error(self, r):
        """A run that failed before any phase, with one error record: that record."""
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        self.assertEqual(r.records("phase"), [])
        errors = r.records("error")
        self.assertEqual(len(errors), 1, errors)
        return errors[0]

    def test_not_ready_means_no_phases(self):
        error = self.only_error(self.fail)
        self.assertEqual(error["key"], "background.ready")
        self.assertIn("exited with status 3 before it printed 'tracer-ready'", error["reason"])
        self.assertIn("cannot attach", error["reason"])
        bg = self.fail.one("background")
        self.assertEqual(bg["exit"], 3)
        self.assertIsNone(bg["ready_s"])

    def test_a_program_that_cannot_run_names_its_path_and_errno(self):
        # execve's errno comes back to PID 1 through a close-on-exec pipe (the old record
        # said only "execve failed", and in the command's output, not in the error).
        error = self.only_error(self.noexec)
        self.assertEqual(error["key"], "background")
        self.assertEqual(error["reason"], "cannot execute /payload/bg/fail.sh: Permission denied")


if __name__ == "__main__":
    unittest.main()
