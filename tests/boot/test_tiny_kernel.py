"""A minimal kernel from Debian's linux-source-6.1 (tinyconfig + kconfig/ fragments, no
modules, scripts/build-kernel.sh) boots the image and the probes work; the same kernel
without BTF shows every BTF-dependent feature degrading or unsupported, with its reason,
while the rest runs. Building takes tens of minutes on two cores: the tests run when the
kernels are built (cached) or when INITBENCH_BUILD_KERNELS=1 asks for the build."""
import os
import subprocess
import unittest

import bootlib

BUILD = os.environ.get("INITBENCH_BUILD_KERNELS") == "1"


def tiny_kernel(variant):
    cmd = [str(bootlib.SOURCE / "scripts/build-kernel.sh")] + ([] if BUILD else ["--cached"]) + [variant]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=7200)
    if p.returncode == 3:
        raise unittest.SkipTest(f"{variant} kernel not built (INITBENCH_BUILD_KERNELS=1 builds it)")
    p.check_returncode()
    return p.stdout.strip()


PARAMS = ["initbench.duration=1", "initbench.wakeups=1", "initbench.funclat.subtract=offcpu",
          "initbench.task_storage_churn=1", "initbench.schedstat=1"]


def fork_probes(r):
    return {p["probe"] + p.get("function", ""): p for p in r.records("probe") if p["phase"] == "fork"}


class TinyKernel(unittest.TestCase):
    def test_probes_work(self):
        r = bootlib.run(*PARAMS, kernel_path=tiny_kernel("tiny"))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertTrue(r.one("header")["kernel"]["btf"])
        p = fork_probes(r)
        self.assertEqual(p["funclatkernel_clone"]["mechanism"], "fentry/fexit")
        self.assertGreater(p["funclatkernel_clone"]["count"], 0)
        self.assertGreater(p["wakeups"]["processes"], 0)


class TinyKernelWithoutBtf(unittest.TestCase):
    def test_btf_features_degrade_with_reasons(self):
        r = bootlib.run(*PARAMS, kernel_path=tiny_kernel("tiny-nobtf"))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        self.assertFalse(r.one("header")["kernel"]["btf"])
        self.assertEqual([x["phase"] for x in r.records("phase")], ["none", "fork"])
        p = fork_probes(r)
        funclat = p["funclatkernel_clone"]
        # subtract needs tp_btf/sched_switch, so funclat cannot load at all without BTF...
        self.assertFalse(funclat["supported"])
        self.assertIn("BTF", funclat["reason"])
        # ...while wakeups falls back to the classic tracepoint: threads only.
        self.assertEqual(p["wakeups"]["mechanism"], "tracepoint/sched/sched_wakeup")
        self.assertGreater(p["wakeups"]["threads"], 0)
        self.assertIsNone(p["wakeups"]["processes"])
        self.assertFalse(p["task_storage_churn"]["supported"])
        self.assertTrue(p["schedstat"]["supported"])

    def test_funclat_without_subtract_uses_kprobes(self):
        r = bootlib.run("initbench.duration=1", kernel_path=tiny_kernel("tiny-nobtf"))
        self.assertEqual(r.code, 0, r.stdout + r.stderr)
        funclat = fork_probes(r)["funclatkernel_clone"]
        self.assertEqual(funclat["mechanism"], "kprobe/kretprobe")
        self.assertIn("BTF", funclat["fallback_reason"])
        self.assertGreater(funclat["count"], 0)


if __name__ == "__main__":
    unittest.main()
