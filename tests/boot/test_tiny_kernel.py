"""A minimal kernel from Debian's linux-source-6.1 (tinyconfig + kconfig/ fragments, no
modules, scripts/build-kernel.sh) boots the image and the probes work; the same kernel
without BTF shows every BTF-dependent feature degrading or unsupported, with its reason,
while the rest runs. Building takes tens of minutes on two cores: the tests run when the
kernels are built (scripts/test.sh builds them once into the cache; INITBENCH_BUILD_KERNELS=1
builds them from here)."""
import os
import subprocess
import unittest
from pathlib import Path

import bootlib
import limits

BUILD = os.environ.get("INITBENCH_BUILD_KERNELS") == "1"


def tiny_kernel(variant):
    cmd = [str(bootlib.SOURCE / "scripts/build-kernel.sh")] + ([] if BUILD else ["--cached"]) + [variant]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=limits.KERNEL_BUILD_S)
    if p.returncode == 3:
        raise unittest.SkipTest(f"{variant} kernel not built (INITBENCH_BUILD_KERNELS=1 builds it)")
    p.check_returncode()
    return p.stdout.strip()


# Every probe, a tcp phase (whose loopback traffic runs the net_rx softirq) and sleepers (whose
# wake-ups the task storage churn counts): each row of kconfig/features.tsv is checked against
# the boot.
PARAMS = ["initbench.duration=1", "initbench.wakeups=1", "initbench.softirq=1", "initbench.funclat.subtract=offcpu",
          "initbench.task_storage_churn=1", "initbench.schedstat=1", "initbench.kthread=kthreadd",
          "initbench.perf=task-clock", "initbench.phases=none,fork,tcp,sleep", "initbench.sleep.tasks=20",
          "initbench.sleep.interval=0.02"]


def boot_and_check_kconfig(test, variant):
    """Boots the variant with PARAMS; `initbench kconfig check` on its .config (saved next to
    the bzImage by build-kernel.sh) must foretell what the boot did."""
    kernel = tiny_kernel(variant)
    r = bootlib.run(*PARAMS, kernel_path=kernel)
    test.assertEqual(r.code, 0, r.stdout + r.stderr)
    bootlib.check_kconfig_prediction(test, Path(kernel).parent / "config", r)
    bootlib.assert_tcp_runs_net_rx(test, r)
    return r


def phase_probes(r, phase):
    return {p["probe"] + p.get("function", ""): p for p in r.records("probe") if p["phase"] == phase}


def fork_probes(r):
    return phase_probes(r, "fork")


class TinyKernel(unittest.TestCase):
    ctest_labels = ("matrix",)
    ctest_extra_s = limits.KERNEL_BUILD_BASE_S  # when INITBENCH_BUILD_KERNELS=1 builds it here

    def test_probes_work(self):
        r = boot_and_check_kconfig(self, "tiny")
        self.assertTrue(r.one("header")["kernel"]["btf"])
        p = fork_probes(r)
        self.assertEqual(p["funclatkernel_clone"]["mechanism"], "fentry/fexit")
        self.assertGreater(p["funclatkernel_clone"]["count"], 0)
        self.assertGreater(p["wakeups"]["processes"], 0)
        # README's kernel table says these work here: their numbers, not only "supported".
        schedstat = p["schedstat"]
        self.assertEqual(schedstat["version"], 15)  # /proc/schedstat's format on 6.1
        self.assertGreater(schedstat["cpus"]["cpu0"]["sched_count"], 0)  # the fork load switched
        # 20 sleepers waking every 20 ms for a second: each wake-up creates and deletes storage.
        churn = phase_probes(r, "sleep")["task_storage_churn"]
        self.assertEqual(churn["mechanism"], "tp_btf/sched_wakeup")
        self.assertGreater(churn["created"], 20 * 10)
        self.assertEqual(churn["created"], churn["deleted"])
        self.assertEqual(churn["failed"], 0)


class TinyKernelWithoutBtf(unittest.TestCase):
    ctest_labels = ("matrix",)
    ctest_boots = 3
    ctest_extra_s = limits.KERNEL_BUILD_BASE_S

    def test_btf_features_degrade_with_reasons(self):
        r = boot_and_check_kconfig(self, "tiny-nobtf")
        self.assertFalse(r.one("header")["kernel"]["btf"])
        self.assertEqual([x["phase"] for x in r.records("phase")], ["none", "fork", "tcp-1", "sleep"])
        p = fork_probes(r)
        funclat = p["funclatkernel_clone"]
        # fentry and tp_btf need BTF: kprobes time the function, the classic sched_switch
        # tracepoint measures the switched-out time.
        self.assertTrue(funclat["supported"], funclat.get("reason"))
        self.assertEqual(funclat["mechanism"], "kprobe/kretprobe")
        self.assertIn("BTF", funclat["fallback_reason"])
        self.assertEqual(funclat["switch_mechanism"], "tracepoint/sched/sched_switch")
        self.assertGreater(funclat["count"], 0)
        self.assertIn("switched_out", funclat)
        # Wakeups falls back to the classic tracepoint: threads only.
        self.assertEqual(p["wakeups"]["mechanism"], "tracepoint/sched/sched_wakeup")
        self.assertGreater(p["wakeups"]["threads"], 0)
        self.assertIsNone(p["wakeups"]["processes"])
        self.assertIn("processes and mms need it", p["wakeups"]["fallback_reason"])
        # Task storage cannot work without BTF at all: unsupported, with the reason.
        self.assertFalse(p["task_storage_churn"]["supported"])
        self.assertTrue(p["task_storage_churn"]["reason"])
        self.assertTrue(p["schedstat"]["supported"])

    def test_funclat_without_subtract_uses_kprobes(self):
        r = bootlib.run("initbench.duration=1", kernel_path=tiny_kernel("tiny-nobtf"))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        funclat = fork_probes(r)["funclatkernel_clone"]
        self.assertEqual(funclat["mechanism"], "kprobe/kretprobe")
        self.assertIn("BTF", funclat["fallback_reason"])
        self.assertGreater(funclat["count"], 0)

    def test_switched_out_time_from_the_classic_tracepoint(self):
        # Every sleeper is switched out inside hrtimer_nanosleep: each timed call says so.
        r = bootlib.run("initbench.duration=1", "initbench.phases=sleep", "initbench.funclat=hrtimer_nanosleep",
                        "initbench.funclat.subtract=offcpu", kernel_path=tiny_kernel("tiny-nobtf"))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        f = [p for p in r.records("probe") if p["probe"] == "funclat"][0]
        self.assertEqual(f["switch_mechanism"], "tracepoint/sched/sched_switch")
        self.assertGreater(f["count"], 0)
        self.assertEqual(f["switched_out"]["calls"], f["count"])
        self.assertGreater(f["switched_out"]["subtracted"], f["sum"])
        # A kretprobe tracks few calls in flight: thousands of sleepers lose returns, and
        # the record shows it rather than hiding it.
        self.assertGreater(f["entries"], f["count"])


if __name__ == "__main__":
    unittest.main()
