"""Boot tests of `initbench pack --program`: Debian's own dynamically linked programs (glibc)
packed with their libraries and loader run in the static, musl-only image.

PackedPrograms: one boot of Debian's 6.1 kernel under QEMU TCG. The command is a packed script
(--data) that runs stress-ng (25 shared libraries) and env (which shares libc and the loader
with it) through their wrappers in /payload/bin, and reads a data file packed beside them.

PackedProgramsAsLoads: one boot in which packed programs are external loads (load.NAME):
stress-ng with its bogo-ops rate as the metric, alone and beside the fork load, tbench against
tbench_srv with the clients swept, and the failures, each an error record while the later
phases still run: a program that exits 3, a metric that is not in the output, a setup whose
ready text never comes.

MmCidWithStressNg: scripts/mm-cid-stress-ng-image.sh's image, the mm_cid profile with the
seed's stress-ng commands, in one boot.

SisTbenchImage: scripts/sis-tbench-image.sh's image, the sis_tbench profile with Debian's
tbench as its load, in one boot."""
import json
import re
import shutil
import subprocess
import unittest
from pathlib import Path

import bootlib

CHECK = """#!/bin/sh
set -e
/payload/bin/stress-ng --version
/payload/bin/stress-ng --cpu 1 --cpu-ops 20 --quiet
echo "stress-ng run: exit $?"
/payload/bin/env PACKED_BY=initbench /payload/bin/env | grep PACKED_BY
cat /payload/share/words.txt
"""


def image_from_script(script, image):
    """scripts/SCRIPT BUILD_DIR IMAGE, as docs/seeds.md has users run it."""
    build_dir = Path(bootlib.INITBENCH).resolve().parents[1]
    p = subprocess.run([str(bootlib.SOURCE / "scripts" / script), str(build_dir), str(image)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return image


class PackedPrograms(unittest.TestCase):
    """stress-ng and env, packed with --program, run in the guest with exit 0."""

    @classmethod
    def setUpClass(cls):
        cls.stress_ng = shutil.which("stress-ng")
        if not cls.stress_ng:
            raise unittest.SkipTest("no stress-ng on this host: scripts/install-deps.sh installs it")
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-programs-")
        tmp = Path(cls.tmp.name)
        (tmp / "check").write_text(CHECK)
        (tmp / "check").chmod(0o755)
        (tmp / "words.txt").write_text("packed data file\n")
        (tmp / "experiment.conf").write_text("cmd = /payload/check\n")
        packed = tmp / "packed.cpio.gz"
        cls.pack = subprocess.run(
            [bootlib.INITBENCH, "pack", "--image", bootlib.IMAGE, "--program", cls.stress_ng,
             "--program", "/usr/bin/env", "--data", f"{tmp / 'check'}:/payload/check",
             "--data", f"{tmp / 'words.txt'}:/payload/share/words.txt",
             "--config", str(tmp / "experiment.conf"), "-o", str(packed)],
            capture_output=True, text=True)
        assert cls.pack.returncode == 0, cls.pack.stderr
        cls.r = bootlib.run_image(packed)

    def test_pack_prints_the_sizes(self):
        self.assertRegex(self.pack.stdout, r"/payload/bin/stress-ng: [0-9.]+ MiB program \+ [0-9.]+ MiB in \d+ libraries")
        self.assertRegex(self.pack.stdout, r"/payload/bin/env: [0-9.]+ KiB program")
        self.assertRegex(self.pack.stdout, r"programs: [0-9.]+ MiB added, each library once")

    def test_programs_ran(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        cmd = self.r.one("command")
        self.assertEqual(cmd["argv"], ["/payload/check"])
        self.assertEqual([run["exit"] for run in cmd["runs"]], [0], cmd.get("output"))
        version = subprocess.run([self.stress_ng, "--version"], capture_output=True, text=True).stdout
        self.assertIn(version.split("(")[0].strip(), cmd["output"])  # "stress-ng, version X"
        self.assertIn("stress-ng run: exit 0", cmd["output"])
        self.assertIn("PACKED_BY=initbench", cmd["output"])
        self.assertIn("packed data file", cmd["output"])


EXPERIMENT = r"""
phases = none, failing, stressfork, nomatch, neverready, stressfork+fork, tbench, fixedwork
duration = 2
workers = 1
load.stressfork = stress-ng --fork {workers} -t {duration} --metrics-brief
load.stressfork.metric = fork +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)
load.stressfork.unit = bogo-ops/s
# Its output matches its .metric: the number must still not count, since the program failed.
load.failing = sh -c 'echo rate 42.5; echo about to fail; exit 3'
load.failing.metric = rate ([0-9.]+)
load.failing.unit = ops/s
load.nomatch = sh -c 'echo no number here'
load.nomatch.metric = rate ([0-9.]+)
load.nomatch.unit = ops/s
load.neverready = sleep {duration}
load.neverready.setup = sh -c 'echo starting; exec sleep 100'
load.neverready.ready = listening
load.neverready.ready_timeout = 2
load.tbench = tbench -t {duration} -c /payload/share/client.txt {clients} 127.0.0.1
load.tbench.setup = tbench_srv
# tbench_srv's "waiting for connections" stays in its stdio buffer when its output is a file
load.tbench.ready_port = 7003
load.tbench.clients = 1, cpus, 2*cpus
load.tbench.metric = Throughput ([0-9.]+) MB/sec
load.tbench.unit = MB/s
# A fixed amount of work, timed by its own run.
load.fixedwork = stress-ng --fork 1 --fork-ops 300
load.fixedwork.window = program
"""


class PackedProgramsAsLoads(unittest.TestCase):
    """stress-ng and tbench as external loads, and their failures, in one boot."""

    @classmethod
    def setUpClass(cls):
        programs = [shutil.which(p) for p in ("stress-ng", "tbench", "tbench_srv")]
        client_txt = Path("/usr/share/dbench/client.txt")
        if not all(programs) or not client_txt.exists():
            raise unittest.SkipTest("no stress-ng or dbench on this host: scripts/install-deps.sh installs them")
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-program-loads-")
        tmp = Path(cls.tmp.name)
        (tmp / "experiment.conf").write_text(EXPERIMENT)
        packed = tmp / "packed.cpio.gz"
        pack = subprocess.run(
            [bootlib.INITBENCH, "pack", "--image", bootlib.IMAGE,
             *[a for p in programs for a in ("--program", p)],
             "--data", f"{client_txt}:/payload/share/client.txt",
             "--config", str(tmp / "experiment.conf"), "-o", str(packed)],
            capture_output=True, text=True)
        assert pack.returncode == 0, pack.stderr
        cls.r = bootlib.run_image(packed, "initbench.funclat=kernel_clone", extra_args=("--cpus", "2"))
        cls.phases = {p["phase"]: p for p in cls.r.records("phase")}
        cls.errors = cls.r.records("error")

    def error_of(self, phase):
        found = [e for e in self.errors if e.get("what") == f"phase {phase}"]
        self.assertEqual(len(found), 1, self.errors)
        return found[0]

    def test_the_run_completes_with_the_failures_as_errors(self):
        # Exit 1: complete, with error records; every phase after a failure ran.
        self.assertEqual(self.r.code, 1, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        self.assertEqual(self.r.one("end")["type"], "end")
        self.assertEqual(sorted(self.phases), ["failing", "fixedwork", "nomatch", "none", "stressfork",
                                               "stressfork+fork", "tbench-1", "tbench-2", "tbench-4"])
        self.assertEqual(len(self.errors), 3, self.errors)

    def test_stress_ng_bogo_ops_rate_is_the_metric(self):
        p = self.phases["stressfork"]
        self.assertEqual(p["load"]["name"], "stressfork")
        self.assertEqual(p["program"]["exit"], 0, p["program"]["output_tail"])
        self.assertEqual(p["program"]["command"], "stress-ng --fork 1 -t 2 --metrics-brief")
        m = p["metrics"]["result"]
        self.assertEqual((m["unit"], m["agg"], m["better"]), ("bogo-ops/s", "hmean", "higher"))
        self.assertGreater(m["value"], 0)
        self.assertIn(f"{m['value']:.2f}", p["program"]["output_tail"])
        self.assertNotIn("ops", p)
        # The program ran in the window, in the load's cgroup: its forks were counted there.
        self.assertGreater(p["cpu"]["sys_s"], 0)
        self.assertEqual(p["tasks"]["leftover"], 0)
        self.assertEqual(p["tasks"]["reaped"], 1)  # the program, which ended by itself
        probe = [r for r in self.r.records("probe") if r["phase"] == "stressfork"][0]
        self.assertGreater(probe["count"], 10)

    def test_stress_ng_beside_the_fork_load(self):
        p = self.phases["stressfork+fork"]
        self.assertEqual([l["name"] for l in p["loads"]], ["stressfork", "fork"])
        self.assertIn("stressfork.result", p["metrics"])
        self.assertIn("fork.ops_per_s", p["metrics"])
        self.assertEqual(p["loads"][0]["program"]["exit"], 0)

    def test_a_program_that_fails_is_an_error(self):
        p = self.phases["failing"]
        self.assertEqual(p["program"]["exit"], 3)
        self.assertIn("about to fail", p["program"]["output_tail"])
        self.assertIn("rate 42.5", p["program"]["output_tail"], "the metric's pattern matched")
        self.assertEqual(p["metrics"], {}, "a failed program's figure is not a result")
        e = self.error_of("failing")
        self.assertEqual(e["key"], "load.failing")
        self.assertIn("exited with status 3; its last line: about to fail", e["reason"])

    def test_a_metric_not_in_the_output_is_an_error(self):
        p = self.phases["nomatch"]
        self.assertEqual(p["program"]["exit"], 0)
        self.assertEqual(p["metrics"], {})
        e = self.error_of("nomatch")
        self.assertEqual(e["key"], "load.nomatch.metric")
        self.assertIn("no match", e["reason"])

    def test_a_fixed_work_program_is_timed_by_its_run(self):
        # load.fixedwork.window=program: the window opened as stress-ng started (no warm-up) and
        # closed when it exited; its length is the phase's duration and the metric run_s.
        p = self.phases["fixedwork"]
        self.assertEqual(p["program"]["window"], "program")
        self.assertEqual(p["program"]["exit"], 0, p["program"]["output_tail"])
        self.assertEqual(p["warmup_s"], 0)
        run_s = p["metrics"]["run_s"]
        self.assertEqual((run_s["unit"], run_s["better"], run_s["agg"]), ("s", "lower", "amean"))
        self.assertEqual(run_s["value"], p["duration_s"])
        self.assertNotIn("end_vs_window_s", p["program"])
        # All of its work was inside the window: its 300 forks, each a kernel_clone.
        probe = [r for r in self.r.records("probe") if r["phase"] == "fixedwork"][0]
        self.assertGreaterEqual(probe["count"], 300)
        self.assertEqual(p["tasks"]["reaped"], 1)
        self.assertEqual(self.warnings_of("fixedwork"), [])

    def test_a_program_off_its_fixed_window_is_a_warning(self):
        # nomatch's program ends at once, in a 2 s window: the probes covered 2 s of nothing.
        p = self.phases["nomatch"]
        self.assertEqual(p["program"]["window"], "fixed")
        self.assertLess(p["program"]["end_vs_window_s"], -0.2 * p["duration_s"])
        [w] = self.warnings_of("nomatch")
        self.assertRegex(w["reason"], r"^'sh -c echo no number here' ended [0-9.]+ s before its window closed "
                                      r"\([0-9.]+ s\): .*load\.nomatch\.window=program makes them one$")
        # A program that failed is an error, and no warning besides.
        self.assertEqual(self.warnings_of("failing"), [])
        self.assertNotIn("end_vs_window_s", self.phases["failing"]["program"])

    def warnings_of(self, phase):
        return [w for w in self.r.records("warning") if w.get("what") == f"phase {phase}"]

    def test_a_setup_never_ready_is_an_error_and_no_phase(self):
        self.assertNotIn("neverready", self.phases)
        e = self.error_of("neverready")
        self.assertEqual(e["key"], "load.neverready.ready")
        self.assertIn("did not print 'listening' within 2 s", e["reason"])
        self.assertIn("its last line: starting", e["reason"])

    def test_tbench_against_tbench_srv_with_clients_swept(self):
        for clients in (1, 2, 4):
            p = self.phases[f"tbench-{clients}"]
            self.assertEqual(p["load"]["clients"], clients)
            self.assertEqual(p["program"]["exit"], 0, p["program"]["output_tail"])
            self.assertIn(f" {clients} 127.0.0.1", p["program"]["command"])
            self.assertEqual(p["setup"]["command"], "tbench_srv")
            self.assertGreaterEqual(p["setup"]["ready_s"], 0)
            self.assertEqual(p["metrics"]["result"]["unit"], "MB/s")
            self.assertGreater(p["metrics"]["result"]["value"], 0)
            self.assertEqual(p["tasks"]["leftover"], 0)

    def test_compare_takes_the_metric_like_a_built_in_one(self):
        path = Path(self.tmp.name) / "results.json"
        path.write_text(json.dumps(self.r.doc))
        c = subprocess.run([bootlib.INITBENCH, "compare", str(path), str(path), "--format", "json"],
                           capture_output=True, text=True)
        self.assertEqual(c.returncode, 0, c.stderr)
        metrics = {m["id"]: m for m in json.loads(c.stdout)["metrics"]}
        for id_ in ("stressfork/result", "stressfork+fork/stressfork.result", "tbench-2/result"):
            self.assertIn(id_, metrics, sorted(metrics)[:40])
        self.assertEqual(metrics["tbench-2/result"]["unit"], "MB/s")
        self.assertEqual(metrics["tbench-2/result"]["better"], "higher")
        self.assertEqual(metrics["tbench-2/result"]["agg"], "Hmean")


class MmCidWithStressNg(unittest.TestCase):
    """scripts/mm-cid-stress-ng-image.sh: the mm_cid profile with the seed's own stress-ng
    commands as its loads. One boot on 2 CPUs, 3 s phases without the rest: each stressor ran
    as the seed ran it ($nproc workers), for the phase's window, its bogo-ops/s the metric;
    the profile's probes ran beside it."""

    @classmethod
    def setUpClass(cls):
        if not shutil.which("stress-ng"):
            raise unittest.SkipTest("no stress-ng on this host: scripts/install-deps.sh installs it")
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-mm-cid-")
        image = image_from_script("mm-cid-stress-ng-image.sh", Path(cls.tmp.name) / "mm_cid_stress_ng.cpio.gz")
        cls.r = bootlib.run_image(image, "initbench.duration=3", "initbench.rest=0", extra_args=("--cpus", "2"))
        cls.phases = {p["phase"]: p for p in cls.r.records("phase")}

    def test_the_seeds_stressors_as_the_phases(self):
        self.assertEqual(list(self.phases), ["none", "stress_cpu", "stress_fork", "stress_pthread"])
        commands = {"stress_cpu": "stress-ng --cpu 2 --cpu-load 80 -t 3 --metrics-brief",
                    "stress_fork": "stress-ng --fork 2 -t 3 --metrics-brief",
                    "stress_pthread": "stress-ng --pthread 2 --pthread-max 4 -t 3 --metrics-brief"}
        for name, command in commands.items():
            self.assertEqual(self.phases[name]["program"]["command"], command)
        if self.phases["stress_pthread"]["program"]["exit"] != 0:
            self.assert_stress_ng_pthread_bug_reported()
            del commands["stress_pthread"]
        else:
            self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        for name in commands:
            p = self.phases[name]
            self.assertEqual(p["program"]["exit"], 0, p["program"]["output_tail"])
            m = p["metrics"]["result"]
            self.assertEqual((m["unit"], m["better"]), ("bogo-ops/s", "higher"))
            self.assertGreater(m["value"], 0)
            self.assertIn(f"{m['value']:.2f}", p["program"]["output_tail"])
            self.assertGreater(p["cpu"]["user_s"] + p["cpu"]["sys_s"], 0)
            self.assertEqual(p["tasks"]["leftover"], 0)

    def assert_stress_ng_pthread_bug_reported(self):
        """Debian 12's stress-ng (0.15.06) leaves the thread it created as its time ran out
        unjoined; that thread can crash the stressor as it exits (SIGSEGV, fixed in stress-ng
        0.21.00), and stress-ng then exits 2, "unsuccessful run", after a full window: a few
        runs in a hundred under TCG. initbench must report that as the phase's error and keep
        the metric out; the other phases must be whole."""
        p = self.phases["stress_pthread"]
        tail = p["program"]["output_tail"]
        self.assertEqual(p["program"]["exit"], 2, tail)
        self.assertIn("unsuccessful run completed", tail)
        row = re.search(r"pthread +([0-9]+) +([0-9.]+) ", tail)  # bogo ops, real time
        self.assertTrue(row, tail)
        self.assertGreater(int(row.group(1)), 0, tail)
        self.assertGreater(float(row.group(2)), 2.5, tail)  # it ran its 3 s
        self.assertNotIn("result", p["metrics"])
        errors = self.r.records("error")
        self.assertEqual([(e["what"], e["key"]) for e in errors],
                         [("phase stress_pthread", "load.stress_pthread")])
        self.assertIn("exited with status 2", errors[0]["reason"])
        self.assertEqual(self.r.code, 1, self.r.stderr)

    def test_the_profiles_probes_beside_them(self):
        warnings = [w["reason"] for w in self.r.records("warning") if w.get("what") == "machine"]
        self.assertEqual(len(warnings), 1)
        self.assertIn("128 CPUs (profile:mm_cid)", warnings[0])
        by_phase = {}
        for p in self.r.records("probe"):
            by_phase.setdefault(p["phase"], {})[p["probe"]] = p
        self.assertEqual(set(by_phase), set(self.phases))
        for phase, probes in by_phase.items():
            # task_mm_cid_work is 6.4's: on 6.1 the record says so, with no numbers.
            self.assertFalse(probes["funclat"]["supported"])
            self.assertIn("task_mm_cid_work", probes["funclat"]["reason"])
            self.assertEqual((probes["wakeups"]["tasks"], probes["wakeups"]["supported"]), ("user", True))
        # stress-ng's forked children are user tasks that wake: counted, with their mms.
        fork = by_phase["stress_fork"]["wakeups"]
        self.assertGreater(fork["processes"], 2, fork)
        self.assertGreater(fork["mms"], 2, fork)


class SisTbenchImage(unittest.TestCase):
    """scripts/sis-tbench-image.sh: the sis_tbench profile with Debian's tbench against
    tbench_srv as its load. One boot on 2 CPUs, one round of 2 s phases: the clients swept
    1, ..., 2*cpus, tbench's MB/s the metric, the profile's machine and scheduler statistics."""

    @classmethod
    def setUpClass(cls):
        if not (shutil.which("tbench") and shutil.which("tbench_srv")):
            raise unittest.SkipTest("no dbench on this host: scripts/install-deps.sh installs it")
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-sis-tbench-")
        image = image_from_script("sis-tbench-image.sh", Path(cls.tmp.name) / "sis_tbench.cpio.gz")
        cls.r = bootlib.run_image(image, "initbench.rounds=1", "initbench.duration=2", "initbench.warmup=0",
                                  extra_args=("--cpus", "2"))
        cls.phases = {p["phase"]: p for p in cls.r.records("phase")}

    def test_tbench_with_the_clients_swept_to_twice_the_cpus(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        self.assertEqual(list(self.phases), ["tbench-1", "tbench-2", "tbench-4"])
        for clients in (1, 2, 4):
            p = self.phases[f"tbench-{clients}"]
            self.assertEqual(p["load"]["clients"], clients)
            self.assertEqual(p["program"]["command"], f"tbench -t 2 -c /payload/share/client.txt {clients} 127.0.0.1")
            self.assertEqual(p["program"]["exit"], 0, p["program"]["output_tail"])
            self.assertEqual(p["setup"]["command"], "tbench_srv")
            self.assertGreaterEqual(p["setup"]["ready_s"], 0)
            m = p["metrics"]["result"]
            self.assertEqual((m["unit"], m["better"], m["agg"]), ("MB/s", "higher", "hmean"))
            self.assertGreater(m["value"], 0)
            self.assertIn(f"Throughput {m['value']:g} MB/sec  {clients} clients", p["program"]["output_tail"])
            self.assertEqual(p["tasks"]["leftover"], 0)

    def test_the_profiles_machine_and_scheduler_statistics(self):
        config = self.r.one("header")["config"]
        self.assertEqual(config["profiles"], ["sis_tbench", "payload"])
        self.assertEqual(config["sources"]["machine.topology"], "profile:sis_tbench")
        warnings = [w["reason"] for w in self.r.records("warning") if w.get("what") == "machine"]
        self.assertEqual(len(warnings), 1)
        self.assertIn("8 CPUs (profile:sis_tbench)", warnings[0])
        probes = self.r.records("probe")
        self.assertEqual([p["phase"] for p in probes], list(self.phases))
        for p in probes:
            self.assertEqual(p["probe"], "schedstat")
            self.assertTrue(p["supported"], p.get("reason"))
            # Loopback TCP between client and server wakes tasks on both CPUs.
            self.assertEqual(sorted(p["cpus"]), ["cpu0", "cpu1"])
            self.assertGreater(sum(c["ttwu_count"] for c in p["cpus"].values()), 0, p["cpus"])


if __name__ == "__main__":
    unittest.main()
