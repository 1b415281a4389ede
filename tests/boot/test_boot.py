"""Boot tests: Debian's 6.1 kernel under QEMU TCG with the initbench image.

Each test boots for real and checks what a user gets: the exit code, the results document
and the console log."""
import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

import bootlib

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
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-default-")
        # Other work on the host beside the boot, which its document must count
        # (host.others_busy_cpus): a process that spins until the boot is done.
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            cls.r = bootlib.run(SHORT, workdir=cls.tmp.name)
        finally:
            spinner.kill()
            spinner.wait()

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
        # The spinner beside the boot is other work: most of a CPU (less where other tests
        # share the host), and no more than the host has besides QEMU's.
        self.assertGreater(host["others_busy_cpus"], 0.3, host)
        self.assertLess(host["others_busy_cpus"], os.cpu_count(), host)

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
    ctest_boots = 7

    def check_rejected(self, param, key, reason_re):
        # The host refuses it first, with no boot; booted past that check, the init refuses
        # it with the same words (one check, the same code on both sides).
        refusal = bootlib.refused_on_host(self, "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE, params=(SHORT, param))
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

    def test_load_cpus_none_online(self):
        # The host refuses CPUs the guest will not have; booted past that, the init finds them
        # offline when it plans the phases (after the keys are read) and runs none.
        refusal = bootlib.refused_on_host(self, "--kernel", bootlib.kernel(), "--image", bootlib.IMAGE,
                                          params=(SHORT, "initbench.load.cpus=2-3"))
        self.assertIn("load.cpus=2-3: none of CPUs 2,3 is online (a guest of 1 CPU has CPU 0 only", refusal)
        r = bootlib.run(SHORT, "initbench.load.cpus=2-3", extra_args=["--no-host-check"])
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        assert_clean_end(self, r)
        self.assertEqual([(e["key"], e["reason"]) for e in r.records("error")],
                         [("load.cpus", "none of CPUs 2,3 is online (online: 0)")])
        self.assertEqual(r.records("phase"), [], "no phase ran on CPUs it did not have")
        self.assertEqual(r.one("end")["status"], "error")

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
