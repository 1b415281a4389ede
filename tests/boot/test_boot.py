"""Boot tests: Debian's 6.1 kernel under QEMU TCG with the initbench image.

Each test boots for real and checks what a user gets: the exit code, the results document
and the console log."""
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import bootlib
import limits

# A short experiment: every boot test shrinks the profile so a boot takes seconds.
SHORT = "initbench.duration=1"


def assert_clean_end(test, r):
    """The guest ended by itself: an end record, no panic, no 'Attempted to kill init'."""
    test.assertNotIn("Attempted to kill init", r.log)
    test.assertNotIn("Kernel panic", r.log)
    test.assertEqual(r.doc["log"]["status"], "complete", r.doc.get("reason"))
    test.assertEqual(len(r.records("end")), 1)
    # When the host saw the end record (-1: never); QEMU had started well before.
    test.assertGreater(r.doc["host"]["wall"]["end_record_s"], r.doc["host"]["wall"]["first_output_s"])


class DefaultProfile(unittest.TestCase):
    """The default experiment on Debian's kernel: identity, phases, a real probe, the end."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="initbench-default-")
        cls.r = bootlib.run(SHORT, workdir=cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_ok_and_complete(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        assert_clean_end(self, self.r)
        self.assertEqual(self.r.doc["verdict"], "ok")

    def test_header_identity(self):
        h = self.r.one("header")
        k = h["kernel"]
        # The kernel package is linux-image-6.1.0-N-amd64: its release must be that.
        release = re.search(r"vmlinuz-(.+)$", bootlib.kernel()).group(1)
        self.assertEqual(k["release"], release)
        self.assertRegex(k["build_id"], r"^[0-9a-f]{40}$")
        self.assertIn("initbench.duration=1", k["cmdline"])
        self.assertTrue(k["btf"])
        self.assertEqual(k["cpus_online"], 1)  # run's default --cpus
        self.assertGreater(k["memory_mb"], 1024 * 0.8)  # run's default --memory 1024, less the kernel's own
        self.assertLessEqual(k["memory_mb"], 1024)
        self.assertGreater(k["uptime_at_init_s"], 0)
        self.assertRegex(h["run_id"], r"^[0-9a-f]{32}$")
        self.assertEqual(h["config"]["values"]["profile"], "default")
        self.assertEqual(h["config"]["sources"]["duration"], "cmdline")

    def test_host_facts(self):
        host = self.r.doc["host"]
        self.assertEqual(host["accel"], "tcg")
        self.assertRegex(host["kernel"]["sha256"], r"^[0-9a-f]{64}$")
        self.assertRegex(host["image"]["sha256"], r"^[0-9a-f]{64}$")
        self.assertIn("-kernel", host["qemu_argv"])

    def test_booted_through_pvh(self):
        # Debian's bzImage (CONFIG_PVH=y) boots as its cached vmlinux, which is the kernel
        # that ran: its build id is the one the guest read.
        boot = self.r.doc["host"]["boot"]
        self.assertEqual(boot["protocol"], "pvh", boot.get("reason"))
        self.assertRegex(boot["vmlinux_build_id"], r"^[0-9a-f]{40}$")
        self.assertEqual(boot["vmlinux_build_id"], self.r.one("header")["kernel"]["build_id"])
        self.assertEqual(boot["kernel_sha256"], self.r.doc["host"]["kernel"]["sha256"])

    def test_phases(self):
        phases = self.r.records("phase")
        self.assertEqual([p["phase"] for p in phases], ["none", "fork"])
        fork = phases[1]
        self.assertGreater(fork["ops"], 10, "the fork load forked")
        self.assertGreater(fork["metrics"]["ops_per_s"]["value"], 0)
        self.assertEqual(fork["metrics"]["ops_per_s"]["agg"], "hmean")
        self.assertGreater(fork["cpu"]["user_s"] + fork["cpu"]["sys_s"], 0)
        self.assertGreater(len(fork["samples"]["ops_per_s"]), 1)

    def test_funclat_probe_attached_with_fentry(self):
        probes = {p["phase"]: p for p in self.r.records("probe")}
        fork = probes["fork"]
        self.assertTrue(fork["supported"], fork.get("reason"))
        self.assertEqual(fork["function"], "kernel_clone")
        self.assertEqual(fork["mechanism"], "fentry/fexit")
        # Every fork the load counted went through kernel_clone while the probe was on.
        ops = self.r.records("phase")[1]["ops"]
        self.assertGreaterEqual(fork["count"], ops * 0.9)
        self.assertGreater(fork["max"], 0)
        self.assertEqual(sum(c for _, c in fork["log2"]), fork["count"])
        lin = fork["linear"]
        self.assertEqual(sum(lin["buckets"]) + lin["under"] + lin["over"], fork["count"])

    def test_console_output_fits_a_serial_line(self):
        # 115200 baud moves ~11 KB/s: the default experiment must stay within 16 KB.
        self.assertLessEqual(self.r.one("end")["console_bytes"], 16 * 1024)

    def test_overhead_reported(self):
        end = self.r.one("end")
        o = end["overhead"]
        # How long these take is a benchmark's business (scripts/bench-boot.sh), not a test's:
        # here, that the parts add up. Two 1 s phases follow the first phase's start.
        self.assertGreater(o["init_to_first_phase_s"], 0)
        self.assertGreater(o["probe_setup_s"], 0)
        self.assertLess(o["probe_setup_s"], o["init_to_first_phase_s"])
        self.assertGreater(o["run_s"], o["init_to_first_phase_s"] + 2)
        # The split of the set-up (bpf/core/setup_times.h): funclat's steps happened, each probe's
        # steps fit in its total, and the probes' totals in probe_setup_s.
        ps = o["probe_setup"]
        funclat = [p for p in ps["probes"] if p["probe"] == "funclat kernel_clone"]
        self.assertEqual(len(funclat), 1, ps)
        for step in ("btf_s", "check_s", "open_s", "target_s", "load_s", "attach_s"):
            self.assertGreater(funclat[0][step], 0, step)
            self.assertAlmostEqual(ps[step], sum(p.get(step, 0) for p in ps["probes"]), places=5)
        for p in ps["probes"]:
            steps = sum(v for k, v in p.items() if k.endswith("_s") and k not in ("total_s", "other_s"))
            self.assertLessEqual(steps, p["total_s"] + 1e-5, p)
            self.assertAlmostEqual(steps + p["other_s"], p["total_s"], places=5)
        self.assertLessEqual(sum(p["total_s"] for p in ps["probes"]), o["probe_setup_s"] + 1e-5)
        # The start-up's steps, in order, add up to init_to_first_phase_s.
        st = o["startup"]
        self.assertEqual(set(st), {f"{s}_s" for s in ("bring_up", "console", "settings", "header", "watchdog_kmsg",
                                                       "plan", "probes", "to_first_phase")})
        self.assertTrue(all(v >= 0 for v in st.values()), st)
        self.assertAlmostEqual(sum(st.values()), o["init_to_first_phase_s"], places=4)
        self.assertAlmostEqual(st["probes_s"], o["probe_setup_s"], places=5)

    def test_parse_agrees_with_run(self):
        code, doc = bootlib.parse(Path(self.tmp.name) / "console.log")
        self.assertEqual(code, self.r.code)
        self.assertEqual(doc["records"], self.r.doc["records"])
        self.assertEqual(doc["log"]["status"], "complete")


class Microvm(unittest.TestCase):
    """--machine microvm: the same run on QEMU's machine without PCI or firmware tables, its
    kernel told the TSC's frequency (it has no timer to calibrate against: without
    tsc_early_khz= it hung in 4 boots of 10 under TCG)."""

    @classmethod
    def setUpClass(cls):
        cls.r = bootlib.run(SHORT, extra_args=("--machine", "microvm"))

    def test_runs_as_on_pc(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr)
        assert_clean_end(self, self.r)
        self.assertEqual(self.r.doc["verdict"], "ok")
        self.assertEqual([p["phase"] for p in self.r.records("phase")], ["none", "fork"])
        self.assertTrue(all(p["supported"] for p in self.r.records("probe")), self.r.records("probe"))

    def test_machine_and_its_tsc_recorded(self):
        host = self.r.doc["host"]
        self.assertEqual(host["machine"]["model"], "microvm")
        argv = host["qemu_argv"]
        self.assertEqual(argv[argv.index("-machine") + 1], "microvm")
        khz = host["machine"]["tsc_khz"]
        self.assertIn(f" tsc_early_khz={khz} ", self.r.one("header")["kernel"]["cmdline"])
        self.assertGreater(khz, 100000)

    def test_guest_clock_keeps_the_hosts_time(self):
        # Under TCG the guest's TSC is the host's: told a wrong frequency, the guest's clock
        # would run fast or slow against QEMU's wall time (2x off: a ratio near 0.4 or 1.6).
        # Its uptime at the end record is the host's time to that record less QEMU's start.
        end = self.r.one("end")
        guest = self.r.one("header")["kernel"]["uptime_at_init_s"] + end["overhead"]["run_s"]
        host = self.r.doc["host"]["wall"]["end_record_s"]
        self.assertGreater(guest / host, 0.6, (guest, host))
        self.assertLess(guest / host, 1.05, (guest, host))


class BadParameters(unittest.TestCase):
    """Each kind of bad parameter: an error record naming the key, the end record, and a
    clean power-off — never a kernel panic."""
    ctest_boots = 6

    def check_rejected(self, param, key, reason_re):
        # The host refuses it first, with no boot; booted past that check, the init refuses
        # it with the same words (one check, the same code on both sides).
        refusal = refused_on_host(self, "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE, params=(SHORT, param))
        r = bootlib.run(SHORT, param, extra_args=["--no-host-check"])
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        assert_clean_end(self, r)
        errors = r.records("error")
        self.assertTrue(errors, "an error record")
        self.assertTrue(any(e.get("key", "").removeprefix("initbench.") == key and re.search(reason_re, e["reason"]) for e in errors), errors)
        for e in errors:
            # A config record names the value; the init's record of a phase names its key only.
            said = f"{e['key']}={e['value']}: {e['reason']}" if "value" in e else f": {e['reason']}"
            self.assertIn(said + "\n", refusal)
        self.assertIn("--no-host-check boots anyway", refusal)
        self.assertEqual(r.records("phase"), [], "nothing ran with a bad configuration")
        self.assertEqual(r.one("end")["status"], "error")

    def test_unknown_key(self):
        self.check_rejected("initbench.duraton=3", "duraton", r"unknown key.*duration")

    def test_malformed_number(self):
        self.check_rejected("initbench.rounds=3x", "rounds", r"(number|integer)")

    def test_out_of_range(self):
        self.check_rejected("initbench.rounds=5000", "rounds", r"range|between|at most")

    def test_unknown_profile(self):
        self.check_rejected("initbench.profile=nosuch", "profile", r"default")

    def test_unknown_load_in_a_joined_phase(self):
        self.check_rejected("initbench.phases=sleep+nosuchload", "phases", r"unknown load 'nosuchload'")

    def test_machine_values(self):
        # Every refused machine value is its own error record, in one boot: a value that is
        # not a number, and a topology that does not multiply to the CPU count.
        r = bootlib.run(SHORT, "initbench.machine.memory_mb=lots", "initbench.machine.cpus=2",
                        "initbench.machine.topology=1:2:2", extra_args=["--no-host-check"])
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        assert_clean_end(self, r)
        reasons = {e["key"]: e["reason"] for e in r.records("error")}
        self.assertEqual(reasons, {"initbench.machine.memory_mb": "not a whole number",
                                   "initbench.machine.topology": "1:2:2 is 4 CPUs, but machine.cpus is 2"})
        # The host booted what it could and said why QEMU got no topology.
        machine = r.doc["host"]["machine"]
        self.assertEqual((machine["cpus"], machine["cpus_source"]), (2, "cmdline"))
        self.assertIn("QEMU gets a flat -smp 2", machine["topology_note"])
        self.assertEqual(r.one("end")["status"], "error")


class Watchdog(unittest.TestCase):
    def test_timeout_ends_the_run(self):
        # The host's own limit (the class's) is far away: the guest's watchdog ends the run.
        r = bootlib.run("initbench.duration=60", "initbench.timeout=4")
        self.assertEqual(r.code, 4, r.stdout + r.stderr)
        assert_clean_end(self, r)
        errs = [e for e in r.records("error") if e.get("key") == "timeout"]
        self.assertEqual(len(errs), 1)
        self.assertEqual(r.one("end")["status"], "timeout")
        # The guest powered off by itself well before the host's own timeout.
        self.assertLess(r.doc["host"]["wall"]["total_s"], 90)


class ManyCpus(unittest.TestCase):
    """`--cpus 128`, the mm_cid seed's machine: QEMU boots 128 vCPUs under TCG, a host thread
    each however few CPUs the host has, and the run completes with its probe attached. The
    host gives the kernel its delay loop's value (lpj=), read from the config beside Debian's
    kernel: without it each CPU calibrates its own, longer with every one online (195 s of
    the boot's 267 s on a quiet 2-core host; with it 84 s, scripts/bench-many-cpus.sh)."""
    ctest_boot_s = 900

    def test_boots_and_completes(self):
        r = bootlib.run("initbench.phases=none", "initbench.duration=1", "initbench.workers=0",
                        extra_args=["--cpus", "128"])
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        assert_clean_end(self, r)
        header = r.one("header")
        self.assertEqual(header["kernel"]["cpus_online"], 128)
        machine = r.doc["host"]["machine"]
        self.assertEqual((machine["cpus"], machine["cpus_source"]), (128, "--cpus"))
        argv = r.doc["host"]["qemu_argv"]
        self.assertEqual(argv[argv.index("-smp") + 1], "128")
        self.assertEqual(argv[argv.index("-accel") + 1], "tcg")
        self.assertTrue(r.one("probe")["supported"])
        # The delay loop: HZ from Debian's config beside its vmlinuz, and the value reached the
        # kernel, which took it for every CPU instead of calibrating.
        delay = r.doc["host"]["delay_loop"]
        self.assertEqual(delay["hz"], 250)
        self.assertEqual(Path(delay["hz_from"]).name, "config-" + header["kernel"]["release"])
        self.assertTrue(header["kernel"]["cmdline"].endswith(f" lpj={delay['lpj']}"))
        self.assertNotIn("calibrate_delay_direct", r.log)
        # And it is the value the kernel would work out itself: its BogoMIPS (lpj * HZ / 500 000)
        # twice the TSC's MHz that it measured, as on a one-CPU boot ("value calculated using
        # timer frequency"). A wrong HZ would be off 4x (1000) or 2.5x (100).
        bogomips = float(re.search(r"preset value\.\. ([0-9.]+) BogoMIPS \(lpj=(\d+)\)", r.log).group(1))
        tsc_mhz = float(re.search(r"tsc: (?:Detected|Refined TSC clocksource calibration:) ([0-9.]+) MHz", r.log).group(1))
        self.assertAlmostEqual(bogomips / (2 * tsc_mhz), 1, delta=0.02)


class HostControl(unittest.TestCase):
    """QEMU never outlives `initbench run`; a host timeout or a signal keeps what arrived."""
    ctest_boots = 5

    @classmethod
    def setUpClass(cls):
        # One short boot with --accel auto in an empty cache: it checks the KVM probe and
        # measures how long this machine, today, takes to a complete run. The kernel is
        # looked up first, in the real cache.
        bootlib.kernel()
        with tempfile.TemporaryDirectory() as cache:
            os.environ["INITBENCH_CACHE"] = cache
            try:
                cls.auto = bootlib.run(SHORT, extra_args=["--accel", "auto"])
            finally:
                del os.environ["INITBENCH_CACHE"]

    def qemu_children(self, pid):
        out = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", str(pid)], capture_output=True, text=True).stdout
        return [int(line.split()[0]) for line in out.splitlines() if "qemu" in line]

    def wait_for_first_record(self, p, log, limit_s):
        """Waits for an event, not a time: the first framed record, whole, in the live console
        log. Its marker alone is not enough: on a slow day the header's line is still arriving
        when the signal lands, and a record cut off is rightly not kept."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline and p.poll() is None:
            text = Path(log).read_text(errors="replace") if os.path.exists(log) else ""
            start = text.find("IB1 0 ")
            if start >= 0 and "\n" in text[start:]:
                return
            time.sleep(0.2)
        self.fail("no record arrived")

    def test_signals_stop_qemu_and_keep_partial_output(self):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with self.subTest(signal=sig.name), tempfile.TemporaryDirectory() as tmp:
                limit = bootlib.boot_limit()
                cmd = [bootlib.INITBENCH, "run", "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE,
                       "--accel", "tcg", "--timeout", f"{limit:g}", "--out", f"{tmp}/r.json",
                       "--log", f"{tmp}/c.log", "--", "initbench.duration=60"]
                p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    self.wait_for_first_record(p, f"{tmp}/c.log", limit)
                    qemu = self.qemu_children(p.pid)
                    self.assertTrue(qemu, "QEMU runs")
                    p.send_signal(sig)
                    p.wait(timeout=limits.STOP_S)
                finally:
                    if p.poll() is None:
                        p.kill()
                        p.wait()
                self.assertEqual(p.returncode, 6)
                for pid in qemu:
                    self.assertFalse(Path(f"/proc/{pid}").exists(), "QEMU is gone")
                doc = json.loads(Path(f"{tmp}/r.json").read_text())
                self.assertEqual(doc["verdict"], "interrupted")
                self.assertIn(str(int(sig)), doc["reason"])
                self.assertEqual([r["type"] for r in doc["records"]][:1], ["header"], "partial output kept")

    def test_host_timeout_before_any_record(self):
        # One second is shorter than any kernel's boot to the init under TCG.
        r = bootlib.run("initbench.duration=60", extra_args=["--timeout", "1"])
        self.assertEqual(r.code, 4, r.stdout + r.stderr)
        self.assertEqual(r.doc["verdict"], "timeout")
        self.assertEqual(r.doc["log"]["status"], "no-records")
        self.assertIn("no initbench record", r.doc["reason"])

    def test_host_timeout_after_records(self):
        # Twice this machine's own short run, and more: the header has long arrived, the
        # 60 s phase has not ended.
        limit = 2 * self.auto.doc["host"]["wall"]["end_record_s"] + 10
        r = bootlib.run("initbench.duration=120", extra_args=["--timeout", f"{limit:.0f}"])
        self.assertEqual(r.code, 4, r.stdout + r.stderr)
        self.assertEqual(r.doc["verdict"], "timeout")
        self.assertIn("partial output kept", r.doc["reason"])
        self.assertEqual(r.doc["log"]["status"], "incomplete")
        self.assertEqual(r.records()[0]["type"], "header")
        self.assertEqual(r.records("end"), [])

    def test_accel_auto_falls_back_or_works(self):
        host = self.auto.doc["host"]
        if host["accel"] == "tcg":
            self.assertIn("accel_note", host, "why KVM was not used")
        self.assertEqual(self.auto.code, 0, self.auto.stdout + self.auto.stderr)


def refused_on_host(test, *args, command="run", params=("initbench.duration=1",)):
    """`initbench COMMAND ARGS -- PARAMS` with a stand-in QEMU on PATH that records any start:
    checks exit 2 and that QEMU never started; returns stderr."""
    with tempfile.TemporaryDirectory(prefix="initbench-refusals-") as tmp:
        bin_dir = Path(tmp) / "bin"
        bin_dir.mkdir()
        started = Path(tmp) / "qemu-started"
        for name in ("qemu-system-x86_64", "qemu-system-aarch64"):
            fake = bin_dir / name
            fake.write_text(f"#!/bin/sh\ntouch {started}\nexit 1\n")
            fake.chmod(0o755)
        env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
        accel = ["--accel", "tcg"] if command == "run" and "--accel" not in args else []
        p = subprocess.run([bootlib.INITBENCH, command, *accel, *args, "--", *params],
                           capture_output=True, text=True, env=env, timeout=limits.HOST_S)
        test.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        test.assertFalse(started.exists(), "QEMU was started")
        return p.stderr


class HostRefusals(unittest.TestCase):
    """A file that is not a kernel or not an initramfs, and parameters the init would refuse,
    are refused on the host, exit 2, with their reason, and QEMU never starts."""
    ctest_boots = 0

    def refused(self, *args, params=("initbench.duration=1",)):
        return refused_on_host(self, *args, params=params)

    def image_args(self):
        return ("--kernel", bootlib.kernel(), "--image", bootlib.IMAGE)

    def test_parameters_the_init_would_refuse(self):
        cases = {
            "initbench.duraton=2": "cmdline: initbench.duraton=2: unknown key (did you mean 'initbench.duration'?)",
            "initbench.profile=mmcid": "cmdline: initbench.profile=mmcid: no such profile (did you mean 'mm_cid'?); "
                                       "available: ",
            "initbench.phases=frok": "cmdline: initbench.phases=frok: unknown load 'frok' (did you mean 'fork'?)",
            "initbench.phases=none,sleep+frok": "cmdline: initbench.phases=sleep+frok: unknown load 'frok' in "
                                                "'sleep+frok' (did you mean 'fork'?)",
            "initbench.duration=abc": "cmdline: initbench.duration=abc: not a number of seconds",
        }
        for param, message in cases.items():
            with self.subTest(param=param):
                err = self.refused(*self.image_args(), params=(param,))
                self.assertIn("initbench run: " + message, err)
                self.assertIn("refused before the boot", err)
        # An external load is a load like any other once defined, and its typo is caught too.
        err = self.refused(*self.image_args(), params=("initbench.load.spin=/bin/true", "initbench.phases=spinn"))
        self.assertIn("unknown load 'spinn' (did you mean 'spin'?)", err)
        # A Perl-style class in a metric's expression matched nothing in the guest: refused here.
        err = self.refused(*self.image_args(), params=("initbench.load.spin=/bin/true", "initbench.load.spin.unit=op",
                                                      r"initbench.load.spin.metric=rate\s+([0-9]+)",
                                                      "initbench.phases=spin"))
        self.assertIn(r"initbench.load.spin.metric=rate\s+([0-9]+): '\s' is not POSIX ERE: write [[:space:]]", err)

    def test_programs_the_image_does_not_hold(self):
        # What cmd, background or a load would start is looked for in the image as the init
        # looks for it; a value with spaces is read as the kernel gets it (quoted), not cut.
        err = self.refused(*self.image_args(), params=("initbench.cmd=slep 1",))
        self.assertIn("initbench run: cmd=slep 1: slep is not in the image (nor along PATH /payload/bin:", err)
        self.assertIn("did you mean 'sleep'?", err)
        self.assertIn("refused before the boot", err)
        err = self.refused(*self.image_args(), params=("initbench.load.hb=/payload/bin/hackbench -g {workers}",
                                                      "initbench.phases=hb"))
        self.assertIn("load.hb=/payload/bin/hackbench -g {workers}: /payload/bin/hackbench is not in the image", err)
        # What the image holds passes: busybox's applets along PATH, a path as it is.
        ok = subprocess.run([bootlib.INITBENCH, "lava-job", "--kernel", "http://lab/bzImage", "--image",
                             "http://lab/initbench.cpio.gz", "--check-image", bootlib.IMAGE, "--",
                             "initbench.cmd=true", "initbench.background=/bin/sh"],
                            capture_output=True, text=True, timeout=limits.HOST_S)
        self.assertEqual(ok.returncode, 0, ok.stderr)

    def test_what_a_packed_image_adds_counts(self):
        # A packed image is two archives: the host reads the second too, as the kernel does.
        # Its experiment file's load and its program pass; before, both were refused.
        with tempfile.TemporaryDirectory(prefix="initbench-packed-check-") as tmp:
            conf, script, packed = Path(tmp) / "e.conf", Path(tmp) / "spin.sh", Path(tmp) / "packed.cpio.gz"
            conf.write_text("load.spin = /payload/bin/spin.sh\n")
            script.write_text("#!/bin/sh\nexit 0\n")
            script.chmod(0o755)
            subprocess.run([bootlib.INITBENCH, "pack", "--image", bootlib.IMAGE, "--add", f"{script}:/payload/bin/spin.sh",
                            "--config", str(conf), "-o", str(packed)], check=True, capture_output=True,
                           timeout=limits.HOST_S)
            job = subprocess.run([bootlib.INITBENCH, "lava-job", "--kernel", "http://lab/bzImage", "--image",
                                  "http://lab/packed.cpio.gz", "--check-image", str(packed), "--",
                                  "initbench.phases=none,spin", "initbench.cmd=/payload/bin/spin.sh"],
                                 capture_output=True, text=True, timeout=limits.HOST_S)
            self.assertEqual(job.returncode, 0, job.stderr)
            err = refused_on_host(self, "--kernel", bootlib.kernel(), "--image", str(packed),
                                  params=("initbench.phases=none,spinn",))
            self.assertIn("unknown load 'spinn' (did you mean 'spin'?)", err)

    def test_lava_job_checks_its_parameters_against_the_image(self):
        err = refused_on_host(self, "--kernel", "http://lab/bzImage", "--image", "http://lab/initbench.cpio.gz",
                              "--check-image", bootlib.IMAGE, command="lava-job", params=("initbench.phases=frok",))
        self.assertIn("initbench lava-job: cmdline: initbench.phases=frok: unknown load 'frok'", err)
        ok = subprocess.run([bootlib.INITBENCH, "lava-job", "--kernel", "http://lab/bzImage", "--image",
                             "http://lab/initbench.cpio.gz", "--check-image", bootlib.IMAGE, "--",
                             "initbench.phases=fork"], capture_output=True, text=True, timeout=limits.HOST_S)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("initbench.phases=fork", ok.stdout)

    def test_the_boot_options_are_one_declaration(self):
        # run, ab and bisect-step take the same boot options and check them alike, the guest's
        # size from the experiment's machine.* included: an icount run of 2 CPUs asked by a
        # parameter is refused by each before a boot (ab booted it before and failed every run).
        icount_2 = "--clock icount works with one CPU only (2 from cmdline; --cpus 1 overrides)"
        too_many = "300 CPUs (--cpus): QEMU's x86_64 machine takes at most 255"
        err = self.refused(*self.image_args(), "--clock", "icount", params=("initbench.machine.cpus=2",))
        self.assertIn(icount_2, err)
        self.assertIn(too_many, self.refused(*self.image_args(), "--cpus", "300"))
        with tempfile.TemporaryDirectory() as tmp:
            ab = ("-o", f"{tmp}/ab", *self.image_args(), "--params", "", "--params", "nokaslr",
                  "--accel", "auto", "--boot", "pvh")
            err = refused_on_host(self, *ab, "--clock", "icount", command="ab", params=("initbench.machine.cpus=2",))
            self.assertIn("initbench ab: A: " + icount_2, err)
            self.assertIn(too_many, refused_on_host(self, *ab, "--cpus", "300", command="ab"))
        step = [bootlib.INITBENCH, "bisect-step", *self.image_args(), "--metric", "fork/ops_per_s",
                "--threshold", "<1", "--accel", "auto", "--boot", "pvh"]
        for extra, message in ((["--clock", "icount", "--param", "initbench.machine.cpus=2"], icount_2),
                               (["--cpus", "300"], too_many)):
            with self.subTest(extra=extra):
                p = subprocess.run([*step, *extra, "--", "false"], capture_output=True, text=True,
                                   timeout=limits.HOST_S)
                self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
                self.assertIn("bisect-step: abort: " + message, p.stdout)

    def test_kvm_only_for_the_hosts_architecture(self):
        # KVM runs guests of the host's architecture only: asked for another, it is refused;
        # under --accel auto it is not tried, and no verdict against the host's KVM is left.
        self.assertEqual(os.uname().machine, "x86_64", "the foreign guest below is aarch64")
        arm64 = ("--arch", "aarch64", "--kernel", bootlib.fetch_kernel("arm64"), "--image", bootlib.IMAGE_AARCH64)
        err = refused_on_host(self, *arm64, "--accel", "kvm", command="run")
        self.assertIn("--accel kvm: KVM runs x86_64 guests on this host, not aarch64", err)
        with tempfile.TemporaryDirectory() as tmp:
            fake = Path(tmp) / "qemu-system-aarch64"
            fake.write_text(f'#!/bin/sh\necho "$@" >> {tmp}/argv\nexit 1\n')
            fake.chmod(0o755)
            env = dict(os.environ, PATH=f"{tmp}:{os.environ['PATH']}", INITBENCH_CACHE=f"{tmp}/cache")
            p = subprocess.run([bootlib.INITBENCH, "run", *arm64, "--accel", "auto", "--quiet", "--out", f"{tmp}/r.json"],
                               capture_output=True, text=True, env=env, timeout=limits.HOST_S)
            self.assertEqual(p.returncode, 3, p.stderr)  # the stand-in QEMU printed nothing
            boots = [line for line in Path(f"{tmp}/argv").read_text().splitlines() if "-kernel " in line]
            self.assertEqual([line.split("-accel ")[1].split()[0] for line in boots], ["tcg"], "one boot, with TCG")
            doc = json.loads(Path(f"{tmp}/r.json").read_text())
            self.assertEqual(doc["host"]["accel_note"], "tcg: an aarch64 guest on an x86_64 host")
            self.assertEqual(list(Path(tmp).glob("cache/kvm-broken-*")), [])

    def test_a_kernel_that_is_not_one(self):
        err = self.refused("--kernel", "/etc/passwd", "--image", bootlib.IMAGE)
        self.assertIn("--kernel /etc/passwd: not an x86_64 kernel: no bzImage setup header", err)
        self.assertIn("it starts with 'root:", err)
        err = self.refused("--arch", "aarch64", "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE_AARCH64)
        self.assertIn("not an arm64 kernel", err)

    def test_an_image_that_is_not_one(self):
        err = self.refused("--kernel", bootlib.kernel(), "--image", "/etc/passwd")
        self.assertIn("--image /etc/passwd: not an initramfs", err)


if __name__ == "__main__":
    unittest.main()
