"""The fault matrix (docs/faults.md): Debian's 6.1 kernel under QEMU TCG, hurt on purpose.

Each class provokes one fault for real and checks what the user gets from it: the exit
code, the verdict and its reason, the results document and the console log. Faults inside
the guest come from a payload that runs alongside the phases (initbench.background), packed
into the image with `initbench pack`. The payload scripts wait for the cgroup of a load
phase (the init names them initbench-load-1, -2, ... in phase order) rather than sleeping,
so that the fault lands in the phase the test means whatever the machine's speed.

Already covered elsewhere, and not repeated here: the guest watchdog (test_boot.Watchdog),
the host --timeout and SIGTERM to `initbench run` (test_host.HostControl), out of memory
in a load (test_loads.LoadOutOfMemory)."""
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest
import zlib
from pathlib import Path

import bootlib
import limits

MODULE_BUILD = bootlib.SOURCE / "tests/module/build.sh"
FRAME = re.compile(r"IB1 (\d+) ([0-9a-f]{8}) (.*)$")


def pack(tmp, files, config):
    """The base image with FILES ({path in image: text or local Path}) and an experiment file."""
    tmp = Path(tmp)
    args = []
    for i, (dest, content) in enumerate(files.items()):
        src = content if isinstance(content, Path) else tmp / f"file{i}"
        if not isinstance(content, Path):
            src.write_text(content)
        args += ["--add", f"{src}:{dest}"]
    (tmp / "experiment.conf").write_text(config)
    out = tmp / "packed.cpio.gz"
    p = subprocess.run([bootlib.INITBENCH, "pack", "--image", bootlib.IMAGE, *args,
                        "--config", str(tmp / "experiment.conf"), "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return out


def wait_for_load(n):
    """Shell lines that wait until the n-th load phase has started."""
    return f"until [ -d /sys/fs/cgroup/initbench-load-{n} ]; do usleep 20000; done\n"


def crc_end(text, crc, start=0):
    """The first end of text (its whole length, or just after a '}') where text[:end] has
    that CRC; None when there is none."""
    ends = [len(text)] + [k + 1 for k in range(start, len(text)) if text[k] == "}"]
    return next((e for e in ends if f"{zlib.crc32(text[:e].encode()):08x}" == crc), None)


def intact_frames(log):
    """The frames of the log whose CRC verifies, by seq: what the guest really wrote. A frame
    verifies on its whole text, or on a prefix ending in '}' when console text followed the
    record on its line (`trailed` counts those), or, when a kernel message split it, as a
    prefix of its line joined with the next line (`rejoined`). The rest are `bad`."""
    good, bad, trailed, rejoined = {}, [], 0, 0
    lines = log.replace("\r", "").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        at = line.rfind("IB1 ")
        m = FRAME.match(line[at:]) if at >= 0 else None
        if not m:
            if at >= 0:
                bad.append((None, line))
            continue
        seq, crc, text = int(m.group(1)), m.group(2), m.group(3).rstrip(" \t")
        end = crc_end(text, crc)
        if end is not None:
            trailed += end < len(text)
            good.setdefault(seq, json.loads(text[:end]))
            continue
        rest = lines[i] if i < len(lines) and "IB1 " not in lines[i] else None
        joined = None
        for cut in range(1, len(text) + 1 if rest is not None else 0):
            end = crc_end(text[:cut] + rest, crc, start=cut)
            if end is not None:
                joined = (text[:cut] + rest)[:end]
                trailed += end < cut + len(rest)
                break
        if joined is None:
            bad.append((seq, line))
            continue
        i += 1
        rejoined += 1
        good.setdefault(seq, json.loads(joined))
    return good, bad, trailed, rejoined


class PanicMidRun(unittest.TestCase):
    """The kernel panics in the third phase (sysrq 'c'): boot failure, and what was printed
    before the panic is kept."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-panic-")
        script = ("# crash the kernel once the second load phase (cpu) runs\n" + wait_for_load(2) +
                  "usleep 300000\necho c > /proc/sysrq-trigger\n")
        image = pack(cls.tmp.name, {"/payload/faults/panic.sh": script},
                     "phases = none,fork,cpu,none\nduration = 1\nbackground = sh /payload/faults/panic.sh\n")
        cls.r = bootlib.run_image(image, workdir=cls.tmp.name)

    def test_boot_failure_names_the_panic(self):
        self.assertEqual(self.r.code, 3, self.r.stdout + self.r.stderr)
        self.assertEqual(self.r.doc["verdict"], "boot-failure")
        self.assertIn("kernel panic", self.r.doc["reason"])
        self.assertIn("sysrq triggered crash", self.r.doc["reason"])
        self.assertIn("sysrq triggered crash", self.r.stdout, "the printed summary says why")
        kinds = [e["kind"] for e in self.r.doc["log"]["kernel_events"]]
        self.assertIn("panic", kinds)

    def test_records_before_the_panic_kept(self):
        self.assertEqual(self.r.doc["log"]["status"], "incomplete")
        self.assertEqual(self.r.records("end"), [])
        phases = [p["phase"] for p in self.r.records("phase")]
        self.assertEqual(phases, ["none", "fork"], "the phases before the crash, not the one it hit")
        fork = self.r.records("phase")[1]
        self.assertGreater(fork["ops"], 0)
        self.assertEqual({p["phase"] for p in self.r.records("probe")}, {"none", "fork"})
        self.assertEqual(len(self.r.records("header")), 1)
        # The same records are in the console log, before the panic.
        panic_at = self.r.log.index("Kernel panic")
        self.assertLess(self.r.log.index('"phase":"fork"'), panic_at)

    def test_qemu_ended_with_the_panic(self):
        # panic=-1 and -no-reboot: QEMU exits at once, not at the host's timeout.
        self.assertNotEqual(self.r.doc["verdict"], "timeout", self.r.doc["reason"])
        self.assertNotEqual(self.r.code, 4)
        self.assertNotIn("qemu_stderr", self.r.doc["host"])

    def test_parse_agrees(self):
        code, doc = bootlib.parse(Path(self.tmp.name) / "console.log")
        self.assertEqual(code, 3)
        self.assertEqual(doc["records"], self.r.doc["records"])


class WarnDuringPhase(unittest.TestCase):
    """A module loaded during the fork phase WARNs 0.5 s later: a kernel record of that phase,
    and the run completes."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-warn-")
        tmp = Path(cls.tmp.name)
        release = re.search(r"vmlinuz-(.+)$", bootlib.kernel()).group(1)
        ko = subprocess.run([str(MODULE_BUILD), str(tmp / "build"), "amd64", "initbench_fault"], check=True,
                            capture_output=True, text=True).stdout.strip()
        vermagic = re.search(rb"vermagic=(\S+)", Path(ko).read_bytes()).group(1).decode()
        if vermagic != release:
            raise unittest.SkipTest(f"module built for {vermagic}, kernel under test is {release}")
        script = ("# load the module as the fork phase starts; it warns 0.5 s later\n" + wait_for_load(1) +
                  "insmod /payload/modules/initbench_fault.ko warn_after_ms=500\n")
        image = pack(tmp, {"/payload/modules/initbench_fault.ko": Path(ko), "/payload/faults/warn.sh": script},
                     "phases = none,fork,none\nduration = 2\nbackground = sh /payload/faults/warn.sh\n")
        cls.r = bootlib.run_image(image, workdir=tmp)

    def test_run_completes(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        self.assertEqual(self.r.doc["log"]["status"], "complete")
        self.assertEqual([p["phase"] for p in self.r.records("phase")], ["none", "fork", "none"])
        self.assertEqual(self.r.records("warning"), [], "the background payload ran cleanly")

    def test_warning_is_a_record_of_the_fork_phase(self):
        warnings = [k for k in self.r.records("kernel") if k["kind"] == "warning"]
        self.assertEqual(len(warnings), 1, self.r.records("kernel"))
        w = warnings[0]
        self.assertEqual(w["phase"], "fork")
        self.assertEqual(w["round"], 0)
        self.assertIn("initbench_fault", w["line"])
        self.assertTrue(w["line"].startswith("WARNING:"), w["line"])
        self.assertGreater(w["time_s"], 0)
        self.assertTrue(w["context"], "the lines after the WARNING")

    def test_the_summary_shows_it(self):
        self.assertRegex(self.r.stdout, r"kernel +warning: WARNING:.*initbench_fault")


class ConsoleFlood(unittest.TestCase):
    """A payload floods the console with emergency-level kernel messages (they pass any
    console loglevel) for the whole run: every record is intact or reported damaged, never
    changed."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-flood-")
        script = ("# emergency-level kernel messages, as fast as the shell can write them\n"
                  "i=0\nwhile :; do\n"
                  "  echo \"<0>initbench-flood $i {\\\"ops\\\":99999}\" > /dev/kmsg\n"
                  "  i=$((i+1))\ndone\n")
        image = pack(cls.tmp.name, {"/payload/faults/flood.sh": script},
                     "phases = none,fork,none\nduration = 1\nrounds = 2\nwakeups = 1\n"
                     "background = sh /payload/faults/flood.sh\n")
        cls.r = bootlib.run_image(image, extra_args=["--cpus", "2"], workdir=cls.tmp.name)
        cls.good, cls.bad, cls.trailed, cls.rejoined = intact_frames(cls.r.log)

    def test_the_console_was_flooded(self):
        self.assertGreater(self.r.log.count("initbench-flood"), 100)
        # The payload ran throughout, yet no phase counts it as a task left behind.
        self.assertEqual(self.r.records("warning"), [])
        for p in self.r.records("phase"):
            self.assertEqual(p["tasks"]["leftover"], 0)

    def test_intact_or_reported_damaged(self):
        log = self.r.doc["log"]
        self.assertIn(log["status"], ("complete", "corrupt"), self.r.doc["reason"])
        if log["status"] == "complete":
            self.assertEqual(self.r.code, 0, self.r.doc["reason"])
            self.assertEqual(log["counts"]["damaged"], 0)
        else:
            self.assertEqual(self.r.code, 5, self.r.doc["reason"])
            self.assertEqual(self.r.doc["verdict"], "corrupt")
            self.assertTrue(log["damaged"] or log["missing"])
        # Records followed by a kernel message on their line are kept (their CRC verifies), and
        # so are records split by one whose halves verify; every other frame line hit by the
        # flood is reported damaged.
        self.assertEqual(log["counts"]["text_after_record"], self.trailed)
        self.assertEqual(log["counts"]["rejoined"], self.rejoined)
        damaged_seqs = {d.get("seq") for d in log["damaged"]} | {d.get("seq") for d in log["after_end"]}
        for seq, line in self.bad:
            if seq is not None and seq not in self.good:
                self.assertIn(seq, damaged_seqs | set(log["missing"]), line)

    def test_records_are_what_the_guest_wrote(self):
        # A record in the results is a frame whose CRC verified, byte for byte: the flood's
        # '{"ops":99999}' never gets into a number.
        self.assertTrue(self.r.records())
        for r in self.r.records():
            self.assertIn(r, self.good.values())
            self.assertNotIn("initbench-flood", json.dumps(r))
        for p in self.r.records("phase"):
            self.assertNotEqual(p.get("ops"), 99999)

    def test_no_numbers_claimed_complete_when_damaged(self):
        # Whether this boot's flood split a frame is up to timing, so the damage is made
        # certain on its own log: a phase record's line loses its second half to a flood
        # message, as when the kernel's line overwrote the rest of the frame.
        # The flood may have put text before any frame on its line (on a slow host, before
        # every phase record's), so the frame is found where it starts; a phase record's if
        # one is there, else any record's.
        lines = self.r.log.splitlines(keepends=True)
        frames = [(i, line.index("IB1 ")) for i, line in enumerate(lines) if "IB1 " in line]
        phases = [(i, k) for i, k in frames if '"type":"phase"' in lines[i][k:]]
        at, start = (phases or frames)[0]
        frame = lines[at][start:]
        lines[at] = lines[at][:start] + frame[:len(frame) // 2] + "[   9.999999] initbench-flood 1 {\"ops\":99999}\n"
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "damaged.log").write_text("".join(lines))
            code, damaged = bootlib.parse(Path(tmp, "damaged.log"))
            self.assertEqual(code, 5, damaged.get("reason"))
            self.assertEqual(damaged["verdict"], "corrupt")
            self.assertNotIn(99999, [p.get("ops") for p in damaged["records"] if p.get("type") == "phase"])
            Path(tmp, "damaged.json").write_text(json.dumps(damaged))
            # The other side is the same boot's log parsed the same way, so nothing but the
            # damage (not the clock, not the experiment) can make compare refuse.
            Path(tmp, "intact.log").write_text(self.r.log)
            code, intact = bootlib.parse(Path(tmp, "intact.log"))
            Path(tmp, "intact.json").write_text(json.dumps(intact))
            sides = [("damaged.json", "intact.json")]
            if intact["log"]["status"] != "complete":  # this boot's own damage, if any
                sides = [("intact.json", "intact.json")]
            else:
                self.assertEqual(code, 0, intact.get("reason"))
                p = subprocess.run([bootlib.INITBENCH, "compare", f"{tmp}/intact.json", f"{tmp}/intact.json"],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)  # the refusal below is the damage's
            for a, b in sides:
                p = subprocess.run([bootlib.INITBENCH, "compare", f"{tmp}/{a}", f"{tmp}/{b}"],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
                self.assertIn(f"{a}: the log is corrupt", p.stderr)


class QemuKilled(unittest.TestCase):
    """QEMU killed from outside mid-run, and SIGINT to `initbench run`: exit 6 (interrupted),
    the records so far saved, no QEMU left. And SIGKILL to `initbench run`: no QEMU left, the
    console log so far kept."""
    ctest_boots = 4

    def start(self, tmp):
        limit = bootlib.boot_limit()
        cmd = [bootlib.INITBENCH, "run", "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE,
               "--accel", "tcg", "--timeout", f"{limit:g}", "--out", f"{tmp}/r.json", "--log", f"{tmp}/c.log",
               "--", "initbench.phases=none,fork", "initbench.duration=1", "initbench.rounds=30"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        log = Path(tmp, "c.log")
        # Waits for an event: the first phase record. 30 rounds cannot end before it.
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if log.exists() and '"type":"phase"' in log.read_text(errors="replace"):
                break
            self.assertIsNone(p.poll(), "initbench ended early")
            time.sleep(0.1)
        else:
            p.kill()
            self.fail(f"no phase record within {limit:g} s")
        qemu = self.qemu_children(p.pid)
        self.assertEqual(len(qemu), 1, "one QEMU")
        return p, qemu[0]

    @staticmethod
    def qemu_children(pid):
        out = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(pid)], capture_output=True, text=True).stdout
        return [int(line.split()[0]) for line in out.splitlines() if "qemu" in line]

    def check_interrupted(self, p, qemu, tmp, reason_re):
        stdout, stderr = p.communicate(timeout=limits.STOP_S)
        self.assertEqual(p.returncode, 6, stdout + stderr)
        self.assertFalse(Path(f"/proc/{qemu}").exists(), "no QEMU left")
        doc = json.loads(Path(tmp, "r.json").read_text())
        self.assertEqual(doc["verdict"], "interrupted")
        self.assertRegex(doc["reason"], reason_re)
        self.assertIn("partial output kept", doc["reason"])
        self.assertIn(doc["log"]["status"], ("incomplete", "complete"))
        self.assertNotEqual(doc["log"]["status"], "complete", "30 rounds cannot have finished")
        types = [r["type"] for r in doc["records"]]
        self.assertEqual(types[0], "header")
        self.assertIn("phase", types)
        self.assertNotIn("end", types)
        # The console log holds the same records.
        code, parsed = bootlib.parse(Path(tmp, "c.log"))
        self.assertEqual(code, 5, "the log alone is cut off")
        self.assertEqual(parsed["records"][:len(doc["records"])], doc["records"])
        self.assertIn("interrupted", stdout, "the printed summary says so")

    def test_qemu_sigkill(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, qemu = self.start(tmp)
            os.kill(qemu, signal.SIGKILL)
            self.check_interrupted(p, qemu, tmp, r"QEMU was killed by signal 9 \(SIGKILL\) from outside")

    def test_qemu_sigterm(self):
        # QEMU takes SIGTERM itself: it exits with status 0 and says so on stderr.
        with tempfile.TemporaryDirectory() as tmp:
            p, qemu = self.start(tmp)
            os.kill(qemu, signal.SIGTERM)
            self.check_interrupted(p, qemu, tmp, r"QEMU stopped on a signal from outside \(terminating on signal 15")

    def test_sigkill_to_initbench(self):
        # Nothing can be written after SIGKILL but what was already: the console log. QEMU
        # dies with its parent (PR_SET_PDEATHSIG).
        with tempfile.TemporaryDirectory() as tmp:
            p, qemu = self.start(tmp)
            p.kill()
            p.communicate(timeout=limits.STOP_S)
            deadline = time.monotonic() + limits.STOP_S
            while Path(f"/proc/{qemu}").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertFalse(Path(f"/proc/{qemu}").exists(), "no QEMU left")
            code, parsed = bootlib.parse(Path(tmp, "c.log"))
            self.assertEqual(code, 5)
            self.assertEqual(parsed["log"]["status"], "incomplete")
            self.assertIn("phase", [r["type"] for r in parsed["records"]])

    def test_sigint_to_initbench(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, qemu = self.start(tmp)
            p.send_signal(signal.SIGINT)
            self.check_interrupted(p, qemu, tmp, rf"stopped by signal {int(signal.SIGINT)}")


class TruncatedLog(unittest.TestCase):
    """A real console log cut at every point: `initbench parse` never calls it complete unless
    the end record arrived whole, and the records it keeps are the run's own. Its last phase
    (two sleepers that sleep 60 s) finishes no operation in its window, which is a warning
    beside a rate of 0: a record of a third kind for the cuts to keep."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-truncated-")
        cls.r = bootlib.run("initbench.phases=none,fork,sleep", "initbench.duration=1", "initbench.sleep.tasks=2",
                            "initbench.sleep.interval=60", workdir=cls.tmp.name)
        cls.raw = (Path(cls.tmp.name) / "console.log").read_bytes()

    def test_quiet_still_says_why_a_run_failed(self):
        # --quiet hides the summary of a good run, never the reason a run failed.
        full = Path(self.tmp.name) / "console.log"
        p = subprocess.run([bootlib.INITBENCH, "parse", str(full), "--quiet"], capture_output=True, text=True,
                           timeout=limits.HOST_S)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))
        cut = Path(self.tmp.name) / "quiet-cut.log"
        cut.write_bytes(self.raw[:self.frame_span("phase")[0]])
        p = subprocess.run([bootlib.INITBENCH, "parse", str(cut), "--quiet"], capture_output=True, text=True,
                           timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 5, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertIn("initbench: incomplete: no end record", p.stderr)

    def parse_cut(self, n, *extra):
        path = Path(self.tmp.name) / "cut.log"
        path.write_bytes(self.raw[:n])
        return bootlib.parse(path, *extra)

    def frame_span(self, type_):
        """Byte offsets of the frame line of the first record of TYPE: start, end of its JSON."""
        m = re.search(rb'IB1 \d+ [0-9a-f]{8} \{[^\n]*"type":"' + type_.encode() + rb'"[^\n]*?(?=\r?\n)', self.raw)
        return m.start(), m.end()

    def test_a_window_without_an_operation_is_a_warning(self):
        sleep = [p for p in self.r.records("phase") if p["phase"] == "sleep"]
        self.assertEqual([p["ops"] for p in sleep], [0])
        idle = [w for w in self.r.records("warning") if "so its rate is 0" in w["reason"]]
        self.assertEqual([w["what"] for w in idle], ["phase sleep"], "only the phase that did nothing")
        self.assertRegex(idle[0]["reason"], r"^no wake-up in the [\d.]+ s window, so its rate is 0 and the "
                                            r"rounds have no mean: the load's tasks (had no CPU time|ran for)")

    def test_the_whole_log_is_complete(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        code, doc = self.parse_cut(len(self.raw))
        self.assertEqual(code, 0)
        self.assertEqual(doc["records"], self.r.doc["records"])

    def test_cut_anywhere_before_the_end_record_is_incomplete(self):
        all_records = self.r.doc["records"]
        header_start, _ = self.frame_span("header")
        end_start, end_json_end = self.frame_span("end")
        # Every line boundary and 60 points inside lines, from the header to the end record.
        cuts = {header_start + (end_json_end - header_start) * i // 60 for i in range(60)}
        cuts |= {i + 1 for i in range(header_start, end_json_end) if self.raw[i] == ord("\n")}
        cuts |= {end_start + 10, end_json_end - 1}
        for n in sorted(cuts):
            with self.subTest(cut=n):
                code, doc = self.parse_cut(n)
                self.assertNotEqual(doc["verdict"], "ok")
                self.assertIn(doc["log"]["status"], ("incomplete", "no-records"))
                self.assertEqual(code, 5 if doc["log"]["status"] == "incomplete" else 3)
                self.assertNotIn("end", [r["type"] for r in doc["records"]])
                # What it kept is a prefix of the run's records, each exactly as written.
                self.assertEqual(doc["records"], all_records[:len(doc["records"])])

    def test_cut_inside_a_record_says_where(self):
        start, end = self.frame_span("phase")
        code, doc = self.parse_cut((start + end) // 2)
        self.assertEqual(code, 5)
        self.assertEqual(doc["verdict"], "incomplete")
        self.assertIn("cut off", doc["reason"])
        self.assertIsNotNone(doc["log"]["cut_off"], "the partial last line is reported")
        self.assertEqual(doc["log"]["counts"]["damaged"], 0, "a cut is not damage")
        self.assertNotIn("phase", [r["type"] for r in doc["records"]])

    def test_cut_after_the_end_record_is_complete(self):
        _, end = self.frame_span("end")
        for n in (end, end + 1):
            with self.subTest(cut=n):
                code, doc = self.parse_cut(n)
                self.assertEqual(code, 0)
                self.assertEqual(doc["records"], self.r.doc["records"])

    def test_lab_formats_fail_a_cut_log(self):
        start, _ = self.frame_span("end")
        for fmt, fail_re in (("ktap", r"(?m)^not ok \d+ log-incomplete"), ("lava", r"log-incomplete.*fail")):
            with self.subTest(format=fmt):
                path = Path(self.tmp.name) / "cut.log"
                path.write_bytes(self.raw[:start])
                p = subprocess.run([bootlib.INITBENCH, "parse", str(path), "--format", fmt],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 5)
                self.assertRegex(p.stdout, fail_re)

    def test_compare_refuses_a_cut_run(self):
        start, _ = self.frame_span("end")
        path = Path(self.tmp.name) / "cut.log"
        path.write_bytes(self.raw[:start])
        out = Path(self.tmp.name) / "cut.json"
        subprocess.run([bootlib.INITBENCH, "parse", str(path), "--out", str(out)], capture_output=True)
        p = subprocess.run([bootlib.INITBENCH, "compare", str(out), str(out)], capture_output=True, text=True)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("incomplete", p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
