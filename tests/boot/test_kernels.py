"""The kernel matrix: the same images boot Debian's generic, cloud and PREEMPT_RT x86_64
kernels and its arm64 kernel, and run the default profile with the probes. README's table
of tested kernels comes from these."""
import re
import unittest
from pathlib import Path

import bootlib

# Every probe and a tcp phase, so that each row of kconfig/features.tsv is seen by the boot
# and checked against `initbench kconfig check` on the package's own config.
PROBES = ["initbench.duration=1", "initbench.wakeups=1", "initbench.softirq=1", "initbench.schedstat=1",
          "initbench.funclat.subtract=offcpu", "initbench.task_storage_churn=1", "initbench.kthread=kthreadd",
          "initbench.perf=task-clock", "initbench.phases=none,fork,tcp"]


class KernelBoot(unittest.TestCase):
    """Boots one of Debian's kernels with PROBES and checks what every kernel must show."""

    def boot(self, flavour, arch="x86_64"):
        path = bootlib.fetch_kernel(flavour)
        r = bootlib.run(*PROBES, kernel_path=path, arch=arch)
        self.assertEqual(r.code, 0, f"{flavour}: {r.stdout}{r.stderr}")
        header = r.one("header")
        self.assertEqual(header["kernel"]["release"], re.search(r"vmlinuz-(.+)$", path).group(1))
        self.assertEqual(header["arch"], arch)
        self.assertEqual([p["phase"] for p in r.records("phase")], ["none", "fork", "tcp-1"])
        fork = [p for p in r.records("probe") if p["phase"] == "fork"]
        funclat = [p for p in fork if p["probe"] == "funclat"][0]
        self.assertTrue(funclat["supported"], funclat.get("reason"))
        self.assertGreater(funclat["count"], 0)
        wakeups = [p for p in fork if p["probe"] == "wakeups"][0]
        self.assertGreater(wakeups["threads"], 0)
        schedstat = [p for p in fork if p["probe"] == "schedstat"][0]
        self.assertTrue(schedstat["supported"], schedstat.get("reason"))
        self.assertEqual(schedstat["version"], 15)  # /proc/schedstat's format on 6.1
        self.assertGreater(schedstat["cpus"]["cpu0"]["sched_count"], 0)  # the fork load switched
        # Debian ships the kernel's config next to it: its prediction must match the boot.
        config = next(Path(path).parent.glob("config-*"))
        bootlib.check_kconfig_prediction(self, config, r)
        bootlib.assert_tcp_runs_net_rx(self, r)
        return r, funclat

class KernelMatrix(KernelBoot):
    """Debian's x86_64 kernels: registered whatever architectures the build makes."""
    # One ctest test per kernel, each within its own timeout.
    ctest_per_method = True
    ctest_labels = ("matrix",)

    def test_generic_amd64(self):
        _, funclat = self.boot("amd64")
        self.assertEqual(funclat["mechanism"], "fentry/fexit")

    def test_cloud_amd64(self):
        _, funclat = self.boot("cloud-amd64")
        self.assertEqual(funclat["mechanism"], "fentry/fexit")

    def test_preempt_rt_amd64(self):
        r, funclat = self.boot("rt-amd64")
        self.assertIn("PREEMPT_RT", r.one("header")["kernel"]["version"])
        self.assertEqual(funclat["mechanism"], "fentry/fexit")

class KernelMatrixArm64(KernelBoot):
    """Debian's arm64 kernel: only when the build makes the aarch64 image."""
    ctest_per_method = True
    ctest_labels = ("matrix",)
    ctest_arch = "aarch64"

    def test_arm64_falls_back_to_kprobes(self):
        r, funclat = self.boot("arm64", arch="aarch64")
        # arm64 6.1 has no DYNAMIC_FTRACE_WITH_DIRECT_CALLS: fentry fails with -524.
        self.assertEqual(funclat["mechanism"], "kprobe/kretprobe")
        self.assertIn("524", funclat["fallback_reason"])
        self.assertEqual(r.one("header")["consoles"], ["ttyAMA0"])

    def test_arm64_mm_cid_profile(self):
        # The mm_cid profile, shrunk to 16 workers and 3 s phases (TCG emulating arm64 is slow:
        # a worker's cycle of 32 threads can outlast a 1 s window on a loaded host), with perf
        # stat's default counters: arm64 TCG counts cycles but not instructions or branches.
        r = bootlib.run("initbench.profile=mm_cid", "initbench.duration=3", "initbench.workers=16",
                        "initbench.rest=0", "initbench.perf=default", kernel_path=bootlib.fetch_kernel("arm64"),
                        arch="aarch64", extra_args=("--cpus", "1", "--memory", "2048"))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertEqual([p["phase"] for p in r.records("phase")], ["none", "cpu", "fork", "thread"])
        for p in r.records("phase")[1:]:
            self.assertGreater(p["metrics"]["ops_per_s"]["value"], 0, p["phase"])
        probes = [p for p in r.records("probe") if p["phase"] == "thread"]
        funclat = [p for p in probes if p["probe"] == "funclat"][0]
        # task_mm_cid_work came in 6.4: unsupported on 6.1, with the reason.
        self.assertFalse(funclat["supported"])
        self.assertIn("task_mm_cid_work not found", funclat["reason"])
        self.assertGreater([p for p in probes if p["probe"] == "wakeups"][0]["threads"], 0)
        counters = {c["event"]: c for c in [p for p in probes if p["probe"] == "perf"][0]["counters"]}
        self.assertGreater(counters["cycles"]["value"], 0)
        self.assertGreater(counters["task-clock"]["value"], 0)
        self.assertFalse(counters["instructions"]["supported"])
        self.assertIn("errno", counters["instructions"]["reason"])


if __name__ == "__main__":
    unittest.main()
