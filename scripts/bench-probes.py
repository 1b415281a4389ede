#!/usr/bin/env python3
"""Probe overhead per event: a tight getppid() loop (the `syscall` load) with no probe, with
funclat on the syscall via fentry/fexit and via kprobe/kretprobe. Prints ns per call and
the probe's cost per event, and checks that the probe counted every call.

  scripts/bench-probes.py [--kernel VMLINUZ] [--clock icount|wall] [--duration S]

Under --clock icount (default) guest time is instructions: the figures repeat boot to
boot, and they count the instructions a probe adds, not cache effects. bpftrace's
equivalent needs a guest with Debian's bpftrace, which this image does not have."""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# getppid() reaches __task_pid_nr_ns once per call; the __x64_sys_ wrappers are not in BTF.
FUNCTION = "__task_pid_nr_ns"


def boot(cli, kernel, clock, duration, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        params = ["initbench.phases=syscall", "initbench.workers=1", f"initbench.duration={duration}",
                  "initbench.warmup=0.5", "nokaslr", "norandmaps", *extra]
        subprocess.run([cli, "run", "--kernel", kernel, "--accel", "tcg", "--clock", clock, "--quiet",
                        "--out", str(out), "--", *params], check=True)
        doc = json.loads(out.read_text())
    phase = [r for r in doc["records"] if r["type"] == "phase"][0]
    probe = [r for r in doc["records"] if r["type"] == "probe"]
    calls = phase["ops"] * 1024
    return calls / phase["duration_s"], calls, (probe[0] if probe else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel")
    ap.add_argument("--cli", default=str(ROOT / "build/host/initbench"))
    ap.add_argument("--clock", default="icount", choices=["icount", "wall"])
    ap.add_argument("--duration", default="2")
    a = ap.parse_args()
    kernel = a.kernel or subprocess.run([str(ROOT / "scripts/fetch-debs.sh"), "kernel", "amd64"], check=True,
                                        capture_output=True, text=True).stdout.strip()
    rows = []
    base_rate, _, _ = boot(a.cli, kernel, a.clock, a.duration, [])
    base_ns = 1e9 / base_rate
    rows.append(("no probe", base_ns, None, None, None))
    for mode in ("fentry", "kprobe"):
        rate, calls, probe = boot(a.cli, kernel, a.clock, a.duration,
                                  [f"initbench.funclat={FUNCTION}", f"initbench.attach={mode}"])
        if not probe or not probe.get("supported"):
            rows.append((f"funclat {mode}", None, None, None, probe and probe.get("reason")))
            continue
        ns = 1e9 / rate
        rows.append((f"funclat {probe['mechanism']}", ns, ns - base_ns, probe["count"] / calls, None))
    print(f"clock {a.clock}, kernel {Path(kernel).name}, {FUNCTION}")
    print(f"{'setup':28} {'ns/call':>9} {'probe ns/event':>15} {'events/calls':>13}")
    for name, ns, cost, ratio, why in rows:
        if ns is None:
            print(f"{name:28} unsupported: {why}")
            continue
        print(f"{name:28} {ns:9.1f} {'' if cost is None else f'{cost:15.1f}'} "
              f"{'' if ratio is None else f'{ratio:13.3f}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
