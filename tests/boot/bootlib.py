"""Shared by the boot tests: find the kernel and image, run `initbench` as a user would."""
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import limits
import schema_check

SOURCE = Path(os.environ.get("INITBENCH_SOURCE", Path(__file__).resolve().parents[2]))
INITBENCH = os.environ.get("INITBENCH", str(SOURCE / "build/host/initbench"))
IMAGE = os.environ.get("INITBENCH_IMAGE_X86_64", str(SOURCE / "build/initbench-x86_64.cpio.gz"))
IMAGE_AARCH64 = os.environ.get("INITBENCH_IMAGE_AARCH64", str(SOURCE / "build/initbench-aarch64.cpio.gz"))

_kernels = {}


def fetch_kernel(flavour: str) -> str:
    """A Debian kernel flavour (amd64, cloud-amd64, rt-amd64, arm64), unpacked into the cache."""
    if flavour not in _kernels:
        _kernels[flavour] = subprocess.run(
            [str(SOURCE / "scripts/fetch-debs.sh"), "kernel", flavour],
            check=True, capture_output=True, text=True).stdout.strip()
    return _kernels[flavour]


def kernel() -> str:
    """Debian's amd64 kernel: INITBENCH_TEST_KERNEL, or fetched into the cache."""
    return os.environ.get("INITBENCH_TEST_KERNEL") or fetch_kernel("amd64")


@dataclass
class Run:
    code: int
    doc: dict
    log: str
    stdout: str
    stderr: str

    def records(self, type_=None):
        return [r for r in self.doc.get("records", []) if type_ is None or r.get("type") == type_]

    def one(self, type_):
        found = self.records(type_)
        assert len(found) == 1, f"expected one {type_} record, got {len(found)}"
        return found[0]


# --- Time limits: each boot is charged to its test class's budget (limits.py) ---------------

# Set by ctest for each boot test (tests/boot/CMakeLists.txt); outside ctest, no budget.
_BOOT_S = float(os.environ.get("INITBENCH_TEST_BOOT_S", limits.BOOT_S))
_boots_left = int(os.environ["INITBENCH_TEST_BOOTS"]) if "INITBENCH_TEST_BOOTS" in os.environ else None


def class_tmpdir(test_class, prefix):
    """A temporary directory for a test class's boots, removed once its tests have run, also
    when its setUpClass fails part of the way (where tearDownClass would not run)."""
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    test_class.addClassCleanup(tmp.cleanup)
    return tmp


def boot_limit(limit_s=None) -> float:
    """Charges one boot to this test process's budget and returns its `--timeout`: limit_s,
    or the class's boot limit. A boot the class did not declare (`ctest_boots`,
    `ctest_boot_s`) is refused here, on every machine, instead of meeting ctest's TIMEOUT on a
    slow one."""
    global _boots_left
    limit_s = _BOOT_S if limit_s is None else float(limit_s)
    if limit_s > _BOOT_S:
        raise AssertionError(f"a boot limit of {limit_s:g} s is over the class's {_BOOT_S:g} s: "
                             "raise its ctest_boot_s")
    if _boots_left is not None:
        if _boots_left == 0:
            raise AssertionError("one boot more than the class's ctest_boots: raise it")
        _boots_left -= 1
    return limit_s


def with_timeout(extra_args, limit_s=None):
    """extra_args with a `--timeout` charged by boot_limit (the one it holds, or limit_s)."""
    extra_args = list(extra_args)
    if "--timeout" in extra_args:
        i = extra_args.index("--timeout") + 1
        extra_args[i] = f"{boot_limit(extra_args[i]):g}"
    else:
        extra_args += ["--timeout", f"{boot_limit(limit_s):g}"]
    return extra_args, limits.boot_wait(float(extra_args[extra_args.index("--timeout") + 1]))


def run(*params, extra_args=(), limit_s=None, workdir=None, kernel_path=None, arch="x86_64", image=None) -> Run:
    """`initbench run` with kernel parameters; returns exit code, results and console log.
    Its `--timeout` is limit_s, or the one in extra_args, or the class's boot limit."""
    image = image or (IMAGE_AARCH64 if arch == "aarch64" else IMAGE)
    extra_args, wait_s = with_timeout(extra_args, limit_s)
    with tempfile.TemporaryDirectory(prefix="initbench-test-") as tmp:
        out, log = Path(tmp) / "results.json", Path(tmp) / "console.log"
        accel = [] if "--accel" in extra_args else ["--accel", "tcg"]
        cmd = [INITBENCH, "run", "--arch", arch, "--kernel", kernel_path or kernel(), "--image", image, *accel,
               "--out", str(out), "--log", str(log), *extra_args, "--", *params]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=wait_s)
        doc = json.loads(out.read_text()) if out.exists() else {}
        if doc: schema_check.validate_results(doc)
        text = log.read_text(errors="replace") if log.exists() else ""
        if workdir is not None:
            (Path(workdir) / "console.log").write_text(text)
        if p.returncode in (3, 4, 5):
            # A boot that failed, hung or was cut off: where the console stopped is the first
            # thing to know, and ctest shows a failed test's output.
            tail = "".join(text.splitlines(keepends=True)[-25:])
            print(f"initbench run exited {p.returncode}; the console's last lines:\n{tail}", file=sys.stderr)
        return Run(p.returncode, doc, text, p.stdout, p.stderr)


def run_image(image, *params, **kwargs) -> Run:
    """run() with another image: a packed one, or one a script built."""
    return run(*params, image=str(image), **kwargs)


def parse(log_path, *extra):
    with tempfile.TemporaryDirectory(prefix="initbench-test-") as tmp:
        out = Path(tmp) / "results.json"
        p = subprocess.run([INITBENCH, "parse", str(log_path), "--out", str(out), *extra],
                           capture_output=True, text=True, timeout=limits.HOST_S)
        doc = json.loads(out.read_text()) if out.exists() else {}
        if doc: schema_check.validate_results(doc)
        return p.returncode, doc


# --- `initbench kconfig check` against what a boot observed ---------------------------------

# Rows of kconfig/features.tsv that no QEMU boot can observe, and why.
KCONFIG_UNOBSERVABLE = {
    "watchdog-hw": "QEMU gives the guests no watchdog device, and Debian's watchdog drivers are modules, "
                   "which the image never loads: /dev/watchdog is absent whatever CONFIG_WATCHDOG says",
}


def _probe(r, name):
    """The first record of probe `name` (each phase has one; they agree on how it attached)."""
    found = [p for p in r.records("probe") if p.get("probe") == name]
    return found[0] if found else None


def assert_tcp_runs_net_rx(test, r):
    """Loopback TCP goes through the receive softirq: the softirq probe saw net_rx run in
    every tcp phase (the probe needs no BTF, so on every kernel with tracepoints)."""
    tcp = [p for p in r.records("probe") if p.get("probe") == "softirq" and p["phase"].startswith("tcp")]
    test.assertTrue(tcp, "no softirq record of a tcp phase")
    for s in tcp:
        test.assertTrue(s["supported"], s.get("reason"))
        net_rx = [v["count"] for v in s["vectors"] if v["vector"] == "net_rx"]
        test.assertTrue(net_rx and net_rx[0] > 0, f"{s['phase']}: {s['vectors']}")


def _load_phases(r):
    return [p for p in r.records("phase") if "load" in p]


def _attached(record, works, fallback):
    """works/degrades/unsupported from a probe record's mechanism; None when absent."""
    if record is None:
        return None
    if not record.get("supported"):
        return "unsupported"
    return {works: "works", fallback: "degrades"}.get(record.get("mechanism"))


def _funclat(r):
    # A function the kernel lacks says nothing about its config: only a real attach counts.
    f = _probe(r, "funclat")
    if f is None or (not f.get("supported") and "not found" in f.get("reason", "")):
        return None
    return f


def _observe_funclat_fentry(r):
    f = _funclat(r)
    forced = r.one("header")["config"].get("values", {}).get("attach", "auto") != "auto"
    return None if f is None or forced else _attached(f, "fentry/fexit", "kprobe/kretprobe")


def _observe_funclat_kprobe(r):
    f = _funclat(r)
    if f is None or (f.get("supported") and f.get("mechanism") != "kprobe/kretprobe"):
        return None  # fentry attached: the kprobe path was not taken
    return "works" if f.get("supported") else "unsupported"


def _observe_subtract(r, btf):
    f = _funclat(r)
    if f is None or f.get("subtract", "none") == "none" or not f.get("supported"):
        return None
    used_btf = f.get("switch_mechanism") == "tp_btf/sched_switch"
    if btf:
        return "works" if used_btf else "degrades"
    return None if used_btf else "works"


def _observe_wakeups(r, btf):
    w = _probe(r, "wakeups")
    if w is None:
        return None
    if btf:
        v = _attached(w, "tp_btf/sched_wakeup", "tracepoint/sched/sched_wakeup")
        # With the task pointer it counts processes and mms; without, they are null.
        if v == "works" and w.get("processes") is None:
            return "degrades"
        return v
    if w.get("supported") and w.get("mechanism") != "tracepoint/sched/sched_wakeup":
        return None
    return "works" if w.get("supported") else "unsupported"


def _observe_supported(r, name):
    p = _probe(r, name)
    return None if p is None else ("works" if p.get("supported") else "unsupported")


def _observe_bpf(r):
    seen = [p for p in r.records("probe") if p.get("probe") in ("funclat", "wakeups", "task_storage_churn", "span", "softirq")]
    if not seen:
        return None
    return "works" if any(p.get("supported") for p in seen) else "unsupported"


def _observe_loads(r):
    phases = _load_phases(r)
    if not phases:
        return None
    ok = all(p.get("supported", True) and p.get("metrics", {}).get("ops_per_s", {}).get("value", 0) > 0
             for p in phases)
    return "works" if ok else "unsupported"


def _observe_tcp(r):
    tcp = [p for p in _load_phases(r) if p["phase"].startswith("tcp")]
    if not tcp:
        return None
    ok = all(p.get("supported", True) and p.get("metrics", {}).get("ops_per_s", {}).get("value", 0) > 0 for p in tcp)
    return "works" if ok else "unsupported"


def _observe_load_limits(r):
    phases = _load_phases(r)
    if not phases:
        return None
    # pids.events and memory.events exist only with their controllers; cpu.stat with cgroup2.
    ok = all(p.get("cpu", {}).get("source", "").startswith("cgroup")
             and p.get("failures", {}).get("task_limit_hits") is not None
             and p.get("failures", {}).get("oom_kills") is not None for p in phases)
    return "works" if ok else "unsupported"


def _observe_kthread(r):
    k = _probe(r, "kthread")
    if k is None:
        return None
    return "works" if any(p.get("threads") for p in r.records("probe") if p.get("probe") == "kthread") else "unsupported"


def _observe_console(r, tty):
    return "works" if tty in r.one("header").get("consoles", []) else "unsupported"


def _observe_poweroff(r):
    # QEMU exits by itself when the guest powers off; when it does not, the host kills it at
    # its timeout, long after the end record.
    wall = r.doc.get("host", {}).get("wall", {})
    after_end = wall.get("end_record_to_exit_s", -1)
    if r.one("header")["config"].get("values", {}).get("end", "poweroff") != "poweroff" or after_end < 0:
        return None
    return "works" if after_end < 30 else "unsupported"


KCONFIG_OBSERVERS = {
    "boot": lambda r: "works" if r.records("header") else "unsupported",
    "console-x86_64": lambda r: _observe_console(r, "ttyS0"),
    "console-arm64": lambda r: _observe_console(r, "ttyAMA0"),
    "poweroff-x86_64": _observe_poweroff,
    "poweroff-arm64": _observe_poweroff,
    "loads": _observe_loads,
    "kmsg": lambda r: "unsupported" if any(w.get("what") == "kmsg" for w in r.records("warning")) else "works",
    "tcp-load": _observe_tcp,
    "load-limits": _observe_load_limits,
    "bpf": _observe_bpf,
    "btf": lambda r: "works" if r.one("header")["kernel"].get("btf") else "unsupported",
    "funclat-fentry": _observe_funclat_fentry,
    "funclat-kprobe": _observe_funclat_kprobe,
    "funclat-subtract-btf": lambda r: _observe_subtract(r, True),
    "funclat-subtract-tracepoint": lambda r: _observe_subtract(r, False),
    "wakeups-btf": lambda r: _observe_wakeups(r, True),
    "wakeups-tracepoint": lambda r: _observe_wakeups(r, False),
    "task-storage": lambda r: _observe_supported(r, "task_storage_churn"),
    "softirq": lambda r: _observe_supported(r, "softirq"),
    "schedstat": lambda r: _observe_supported(r, "schedstat"),
    "perf-counters": lambda r: _observe_supported(r, "perf"),
    "kthread": _observe_kthread,
}


def feature_table():
    """kconfig/features.tsv as {feature: fallback or None}."""
    rows = {}
    for line in (SOURCE / "kconfig/features.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            cols = line.split("\t")
            rows[cols[0]] = None if cols[2] == "-" else cols[2]
    return rows


def kconfig_predictions(config_path):
    """`initbench kconfig check CONFIG` as {feature: (status, the rest of its line)}."""
    p = subprocess.run([INITBENCH, "kconfig", "check", str(config_path)], capture_output=True, text=True, timeout=limits.HOST_S)
    if p.returncode not in (0, 1):
        raise AssertionError(f"kconfig check {config_path} exited {p.returncode}: {p.stdout}{p.stderr}")
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(\S+)\s+(works|degrades|unsupported)\b(.*)$", line)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3).strip())
    return out


def check_kconfig_prediction(test, config_path, results_run):
    """`initbench kconfig check` on the kernel's config must foretell, row by row, what the
    boot `results_run` did. A row the boot does not exercise fails the test, unless it is the
    fallback of a row that worked (its path was never taken) or cannot be observed at all
    (KCONFIG_UNOBSERVABLE). Returns {feature: (predicted, observed)} for the rows checked."""
    table = feature_table()
    unknown = set(table) - set(KCONFIG_OBSERVERS) - set(KCONFIG_UNOBSERVABLE)
    test.assertFalse(unknown, "features.tsv rows with no observer in bootlib.py: add one")
    predicted = kconfig_predictions(config_path)
    test.assertEqual(set(predicted) - set(table), set(), "kconfig check printed rows the table lacks")
    test.assertIn("boot", predicted, f"no verdicts from kconfig check {config_path}")
    checked, mismatches, unexercised = {}, [], []
    for feature, (status, detail) in predicted.items():
        if feature in KCONFIG_UNOBSERVABLE:
            continue
        observed = KCONFIG_OBSERVERS[feature](results_run)
        if observed is None:
            parent_works = any(fb == feature and predicted.get(f, ("",))[0] == "works" for f, fb in table.items())
            if not parent_works:
                unexercised.append(feature)
            continue
        checked[feature] = (status, observed)
        if observed != status:
            mismatches.append(f"{feature}: predicted {status} {detail}, the boot shows {observed}")
    test.assertFalse(unexercised, f"{config_path}: the boot does not exercise these rows: add their parameters")
    test.assertFalse(mismatches, f"{config_path}: kconfig check disagrees with the boot:\n" + "\n".join(mismatches))
    return checked


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
        p = subprocess.run([INITBENCH, command, *accel, *args, "--", *params],
                           capture_output=True, text=True, env=env, timeout=limits.HOST_S)
        test.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        test.assertFalse(started.exists(), "QEMU was started")
        return p.stderr
