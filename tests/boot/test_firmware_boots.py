"""Booting as a board boots (`run --boot ipxe|uefi|u-boot`, host/boot/firmware_boot.h): Debian's
firmware fetches Debian's 6.1 and the image over DHCP and TFTP, nothing passed by -kernel. One
boot per path (the suite's budget); the refusals and the stage a stopped boot names cost none."""
import os
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

import bootlib
import limits

EXPERIMENT = ("initbench.phases=fork", "initbench.duration=1")


class FirmwareBoot:
    """One boot through a firmware path, checked against what a -kernel boot gives."""
    path = ""
    arch = "x86_64"
    firmware = ""          # the firmware file QEMU is given
    package = ""           # the Debian package that installs it
    bootloader = ""
    script = ""
    keep = False

    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-firmware-")
        kernel = bootlib.fetch_kernel("arm64") if cls.arch == "aarch64" else bootlib.kernel()
        cls.kept = Path(cls.tmp.name) / "tftp"
        extra = ["--boot", cls.path] + (["--keep-tftp", str(cls.kept)] if cls.keep else [])
        cls.r = bootlib.run(*EXPERIMENT, extra_args=extra, arch=cls.arch, kernel_path=kernel,
                            workdir=cls.tmp.name)
        cls.boot = cls.r.doc.get("host", {}).get("boot", {})

    def test_complete_results_of_a_kernel_boots_shape(self):
        self.assertEqual(self.r.code, 0, self.r.stderr + self.r.log[-3000:])
        self.assertEqual(self.r.doc["log"]["status"], "complete")
        self.assertEqual([p["phase"] for p in self.r.records("phase")], ["fork"])
        self.assertGreater(self.r.one("phase")["metrics"]["ops_per_s"]["value"], 0)
        self.assertTrue(self.r.records("probe"))
        self.r.one("end")

    def test_nothing_passed_by_kernel(self):
        argv = self.r.doc["host"]["qemu_argv"]
        for flag in ("-kernel", "-initrd", "-append"):
            self.assertNotIn(flag, argv)
        self.assertEqual(argv[argv.index("-bios") + 1], self.firmware)

    def test_host_boot_says_how(self):
        b = self.boot
        self.assertEqual(b["protocol"], self.path)
        first = b["firmware"][0]
        self.assertEqual((first["file"], first["package"]), (self.firmware, self.package))
        installed = subprocess.run(["dpkg-query", "-W", "-f=${Version}", self.package],
                                   capture_output=True, text=True).stdout
        self.assertEqual(first["version"], installed)
        self.assertEqual((b["bootloader"]["name"], b["bootloader"]["script"]), (self.bootloader, self.script))
        # The command line the bootloader passed is the one the kernel got.
        cmdline = self.r.one("header")["kernel"]["cmdline"]
        passing = [c for c in b["bootloader"]["commands"] if "initbench.duration=1" in c]
        self.assertEqual(len(passing), 1, b["bootloader"]["commands"])
        self.assertIn("console=", cmdline)
        self.assertIn("initbench.phases=fork initbench.duration=1", passing[0])
        self.assertTrue(cmdline.endswith("initbench.phases=fork initbench.duration=1"), cmdline)

    def test_stages_in_order(self):
        s = self.boot["stages"]
        order = [s["firmware_s"], s["kernel_s"], s["first_record_s"], s["power_off_s"]]
        self.assertTrue(all(isinstance(t, float) for t in order), s)
        self.assertEqual(order, sorted(order), s)
        self.assertLess(s["firmware_s"], s["kernel_s"] - 0.5, "the firmware ran before the kernel")
        self.assertLessEqual(s["firmware_s"], s["bootloader_s"])
        self.assertLessEqual(s["bootloader_s"], s["kernel_s"])

    def test_tftp_root_served_then_removed(self):
        t = self.boot["tftp"]
        names = {f["name"] for f in t["files"]}
        self.assertTrue({self.script, "initrd.img"} <= names, names)
        served = [a for a in self.r.doc["host"]["qemu_argv"] if "tftp=" in a][0]
        root = served.split("tftp=")[1].split(",")[0]
        if self.keep:
            self.assertEqual(t["kept"], str(self.kept))
            self.assertEqual(root, str(self.kept))
            self.assertEqual(sorted(p.name for p in self.kept.iterdir()), sorted(names))
        else:
            self.assertIsNone(t["kept"])
            self.assertFalse(Path(root).exists(), f"{root} left behind")


class FirmwareBootIpxe(FirmwareBoot, unittest.TestCase):
    path = "ipxe"
    firmware = "/usr/share/seabios/bios-256k.bin"
    package = "seabios"
    bootloader = "iPXE"
    script = "boot.ipxe"

    def test_seabios_and_ipxe_on_the_console(self):
        self.assertIn("SeaBIOS", self.r.log)
        self.assertIn("boot.ipxe", self.r.log)


class FirmwareBootUefi(FirmwareBoot, unittest.TestCase):
    path = "uefi"
    firmware = "/usr/share/ovmf/OVMF.fd"
    package = "ovmf"
    bootloader = "iPXE"
    script = "boot.ipxe"

    def test_the_efi_stub_loaded_the_image(self):
        self.assertIn("EFI stub: Loaded initrd", self.r.log)


class FirmwareBootUBoot(FirmwareBoot, unittest.TestCase):
    ctest_arch = "aarch64"
    path = "u-boot"
    arch = "aarch64"
    firmware = "/usr/lib/u-boot/qemu_arm64/u-boot.bin"
    package = "u-boot-qemu"
    bootloader = "U-Boot"
    script = "boot.scr.uimg"
    keep = True

    def test_the_kept_script_is_a_uboot_script_image(self):
        listed = subprocess.run(["mkimage", "-l", str(self.kept / "boot.scr.uimg")], capture_output=True,
                                text=True, timeout=limits.HOST_S)
        self.assertEqual(listed.returncode, 0, listed.stdout + listed.stderr)
        self.assertIn("AArch64 Linux Script (uncompressed)", listed.stdout)
        text = (self.kept / "boot.cmd").read_text()
        self.assertIn("booti ${kernel_addr_r}", text)
        self.assertIn("Starting kernel", self.r.log)


def _fake_qemu(directory, console):
    """A stand-in for qemu-system-x86_64 that prints `console` and then hangs, as a firmware
    whose TFTP fetch failed does."""
    bin_dir = Path(directory) / "bin"
    bin_dir.mkdir()
    (bin_dir / "console.txt").write_bytes(console)
    fake = bin_dir / "qemu-system-x86_64"
    fake.write_text(f"#!/bin/sh\ncat {bin_dir / 'console.txt'}\nexec sleep 600\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    # TMPDIR: the TFTP root is laid out there, and must be gone after the boot.
    return dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", TMPDIR=str(directory))


class FirmwareBootRefusals(unittest.TestCase):
    """What a firmware path refuses before QEMU starts, and where a stopped one says it stopped.
    No boot."""
    ctest_boots = 0

    def refused(self, *args, env=None):
        if env is None:
            return bootlib.refused_on_host(self, "--image", bootlib.IMAGE, *args)
        p = subprocess.run([bootlib.INITBENCH, "run", "--image", bootlib.IMAGE, *args, "--", *EXPERIMENT],
                           capture_output=True, text=True, env=env, timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        return p.stderr

    def test_a_path_of_the_other_architecture(self):
        err = self.refused("--boot", "u-boot", "--kernel", bootlib.kernel())
        self.assertIn("--boot u-boot boots aarch64 (--arch aarch64)", err)
        err = self.refused("--arch", "aarch64", "--boot", "uefi", "--kernel", self.gzip_file())
        self.assertIn("--boot uefi boots x86_64", err)

    def gzip_file(self):
        path = Path(self.tmp.name) / "vmlinuz.gz"
        path.write_bytes(b"\x1f\x8b\x08\x00" + bytes(4096))
        return str(path)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="initbench-firmware-refusals-")
        self.addCleanup(self.tmp.cleanup)

    def test_a_kernel_the_path_cannot_boot(self):
        # A gzip'd arm64 Image is a kernel for --arch aarch64, but booti takes it uncompressed.
        err = self.refused("--arch", "aarch64", "--boot", "u-boot", "--kernel", self.gzip_file())
        self.assertIn("uncompressed arm64 Image (booti)", err)
        # A bzImage without the EFI stub's PE header: Debian's, its header cut off after 4 KiB.
        head = bytearray(Path(bootlib.kernel()).read_bytes()[:4096])
        head[0:2] = b"\0\0"
        no_stub = Path(self.tmp.name) / "bzImage-no-efi-stub"
        no_stub.write_bytes(bytes(head))
        err = self.refused("--boot", "uefi", "--kernel", str(no_stub))
        self.assertIn("this bzImage has none", err)

    def test_a_missing_firmware_file_names_its_package(self):
        env = dict(os.environ, INITBENCH_FIRMWARE_ROOT=self.tmp.name)
        for path, package in (("ipxe", "seabios"), ("uefi", "ovmf")):
            err = self.refused("--boot", path, "--kernel", bootlib.kernel(), env=env)
            self.assertIn(f"apt-get install {package}", err)

    def test_keep_tftp_and_microvm_only_where_they_fit(self):
        err = self.refused("--kernel", bootlib.kernel(), "--keep-tftp", self.tmp.name)
        self.assertIn("only a firmware boot has a TFTP root", err)
        err = self.refused("--boot", "ipxe", "--machine", "microvm", "--kernel", bootlib.kernel())
        self.assertIn("microvm has no PCI bus", err)

    def test_a_stopped_tftp_fetch_is_a_boot_failure_naming_its_stage(self):
        console = (b"\x1b[2JSeaBIOS (version 1.16.2-debian-1.16.2-1)\r\n"
                   b"iPXE 1.0.0 -- Open Source Network Boot Firmware -- http://ipxe.org\r\n"
                   b"tftp://10.0.2.2/boot.ipxe... Connection timed out (http://ipxe.org/4c126035)\r\n")
        env = _fake_qemu(self.tmp.name, console)
        out = Path(self.tmp.name) / "results.json"
        p = subprocess.run([bootlib.INITBENCH, "run", "--accel", "tcg", "--image", bootlib.IMAGE, "--boot", "ipxe",
                            "--kernel", bootlib.kernel(), "--timeout", "3", "--out", str(out), "--quiet", "--",
                            *EXPERIMENT], capture_output=True, text=True, env=env, timeout=limits.HOST_S)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("stopped in iPXE, before the kernel started", p.stderr)
        self.assertIn("Connection timed out", p.stderr)
        self.assertEqual(sorted(p.name for p in Path(self.tmp.name).iterdir()), ["bin", "results.json"])


if __name__ == "__main__":
    unittest.main()
