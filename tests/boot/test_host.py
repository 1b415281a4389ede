"""Boot tests of the host side: `initbench run` controls QEMU (a host timeout, signals, the
KVM probe) and refuses, before QEMU starts, what the guest would refuse."""
import json
import os
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import bootlib
import limits
from test_boot import SHORT


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


class HostRefusals(unittest.TestCase):
    """A file that is not a kernel or not an initramfs, and parameters the init would refuse,
    are refused on the host, exit 2, with their reason, and QEMU never starts."""
    ctest_boots = 0

    def refused(self, *args, params=("initbench.duration=1",)):
        return bootlib.refused_on_host(self, *args, params=params)

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

    def test_an_output_that_cannot_be_written(self):
        # The results and the console log are written after the boot: a path that cannot take
        # them is refused before it, not found out after.
        for option in ("--out", "--log"):
            with self.subTest(option=option):
                err = self.refused(*self.image_args(), option, "/nonexistent/r.json")
                self.assertIn("initbench: cannot write /nonexistent/r.json: directory /nonexistent: "
                              "No such file or directory", err)

    def test_cpus_the_guest_does_not_have(self):
        # The CPUs a command is pinned to, or the loads run on, are checked against --cpus
        # (or machine.cpus), as the init would check them against the CPUs online.
        guest = "(a guest of 2 CPUs has CPUs 0-1; --cpus or machine.cpus sets how many)"
        err = self.refused(*self.image_args(), "--cpus", "2", params=("initbench.load.cpus=2-3",))
        self.assertIn("initbench run: load.cpus=2-3: none of CPUs 2,3 is online " + guest, err)
        err = self.refused(*self.image_args(), "--cpus", "2", params=("initbench.cmd=true", "initbench.pin=1,3"))
        self.assertIn("initbench run: pin=1,3: CPU 3 is not online " + guest, err)
        err = self.refused(*self.image_args(), params=("initbench.machine.cpus=2", "initbench.load.cpus=4"))
        self.assertIn("load.cpus=4: CPU 4 is not online " + guest, err)
        # ab and bisect-step check each boot they plan the same way (bisect-step after its
        # build, here `true`, which may write the parameters file).
        with tempfile.TemporaryDirectory() as tmp:
            err = bootlib.refused_on_host(self, "-o", f"{tmp}/ab", *self.image_args(), "--cpus", "2", "--params", "",
                                          "--params", "initbench.load.cpus=3", command="ab")
            self.assertIn("initbench ab: side B: load.cpus=3: CPU 3 is not online " + guest, err)
        p = subprocess.run([bootlib.INITBENCH, "bisect-step", *self.image_args(), "--cpus", "2", "--metric",
                            "fork/ops_per_s", "--threshold", "<1", "--param", "initbench.load.cpus=2-3", "--", "true"],
                           capture_output=True, text=True, timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
        self.assertIn("initbench bisect-step: load.cpus=2-3: none of CPUs 2,3 is online " + guest, p.stderr)

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
            err = bootlib.refused_on_host(self, "--kernel", bootlib.kernel(), "--image", str(packed),
                                  params=("initbench.phases=none,spinn",))
            self.assertIn("unknown load 'spinn' (did you mean 'spin'?)", err)

    def test_lava_job_checks_its_parameters_against_the_image(self):
        err = bootlib.refused_on_host(self, "--kernel", "http://lab/bzImage", "--image", "http://lab/initbench.cpio.gz",
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
            err = bootlib.refused_on_host(self, *ab, "--clock", "icount", command="ab", params=("initbench.machine.cpus=2",))
            self.assertIn("initbench ab: A: " + icount_2, err)
            self.assertIn(too_many, bootlib.refused_on_host(self, *ab, "--cpus", "300", command="ab"))
        step = [bootlib.INITBENCH, "bisect-step", *self.image_args(), "--metric", "fork/ops_per_s",
                "--threshold", "<1", "--accel", "auto", "--boot", "pvh"]
        for extra, message in ((["--clock", "icount", "--param", "initbench.machine.cpus=2"], icount_2),
                               (["--cpus", "300"], too_many)):
            with self.subTest(extra=extra):
                p = subprocess.run([*step, *extra, "--", "false"], capture_output=True, text=True,
                                   timeout=limits.HOST_S)
                self.assertEqual(p.returncode, 128, p.stdout + p.stderr)
                self.assertIn("bisect-step: abort: " + message, p.stdout)

    def test_a_kernel_that_is_not_one(self):
        err = self.refused("--kernel", "/etc/passwd", "--image", bootlib.IMAGE)
        self.assertIn("--kernel /etc/passwd: not an x86_64 kernel: no bzImage setup header", err)
        self.assertIn("it starts with 'root:", err)

    def test_an_image_that_is_not_one(self):
        err = self.refused("--kernel", bootlib.kernel(), "--image", "/etc/passwd")
        self.assertIn("--image /etc/passwd: not an initramfs", err)


class HostRefusalsArm64(unittest.TestCase):
    """HostRefusals' cases that need the aarch64 image: registered only where it is built
    (the x86_64-only preset builds none)."""
    ctest_boots = 0
    ctest_arch = "aarch64"

    def test_a_kernel_of_the_other_architecture(self):
        err = bootlib.refused_on_host(self, "--arch", "aarch64", "--kernel", bootlib.kernel(), "--image",
                                      bootlib.IMAGE_AARCH64, params=("initbench.duration=1",))
        self.assertIn("not an arm64 kernel", err)

    def test_kvm_only_for_the_hosts_architecture(self):
        # KVM runs guests of the host's architecture only: asked for another, it is refused;
        # under --accel auto it is not tried, and no verdict against the host's KVM is left.
        self.assertEqual(os.uname().machine, "x86_64", "the foreign guest below is aarch64")
        arm64 = ("--arch", "aarch64", "--kernel", bootlib.fetch_kernel("arm64"), "--image", bootlib.IMAGE_AARCH64)
        err = bootlib.refused_on_host(self, *arm64, "--accel", "kvm", command="run")
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


if __name__ == "__main__":
    unittest.main()
