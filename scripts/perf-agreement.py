#!/usr/bin/env python3
"""Benchmark: do initbench's counters agree with `perf stat`?

The same command is counted twice in the same guest (same kernel, same packed image, one
boot each): by initbench (initbench.cmd, initbench.repeat) and by Debian's `perf stat -r`
run inside the guest. The guest gets perf from this host's linux-perf package: `initbench
pack --program` packs the perf binary, its shared libraries and the dynamic loader, and
/payload/bin/perf starts perf through that loader, so the base image stays static and
musl-only.

Usage: scripts/perf-agreement.py [--build DIR] [--kernel VMLINUZ] [--repeat N] [--cpus N]
                                 [--clock icount|wall]
Prints one line per event: both means, their relative spread and the difference."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]
EVENTS = "page-faults,context-switches,task-clock"
# A command with real work for both counters: 50 fork+exec+wait of a BusyBox applet.
COMMAND = "sh -c 'i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done'"


def host_perf() -> str:
    """This host's perf, packed with `initbench pack --program` (/payload/bin/perf)."""
    perf = shutil.which("perf")
    if not perf:
        sys.exit("perf-agreement: no perf on this host: apt-get install linux-perf")
    return perf


def boot(initbench, kernel, image, args, tmp, name):
    out, log = tmp / f"{name}.json", tmp / f"{name}.log"
    p = subprocess.run([initbench, "run", "--kernel", kernel, "--image", str(image), "--accel", "tcg",
                        "--clock", args.clock, "--cpus", str(args.cpus), "--memory", "2048", "--out", str(out), "--log", str(log),
                        "--quiet"], capture_output=True, text=True)
    doc = json.loads(out.read_text()) if out.exists() else {}
    cmds = [r for r in doc.get("records", []) if r.get("type") == "command"]
    if p.returncode != 0 or len(cmds) != 1:
        sys.exit(f"perf-agreement: {name} boot failed (exit {p.returncode}): {doc.get('reason')}; log {log}")
    return cmds[0]


def parse_perf_csv(text):
    """perf stat -x, lines: value,unit,event,+-variance%,run time,running%,... -> {event: (mean, pct)}"""
    out = {}
    for line in text.splitlines():
        f = line.split(",")
        if len(f) >= 4 and f[2] in EVENTS.split(",") and re.match(r"^[0-9.]+$", f[0]):
            pct = float(f[3].rstrip("%")) if re.match(r"^[0-9.]+%$", f[3]) else None
            out[f[2]] = (float(f[0]), pct)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(SOURCE / "build"))
    ap.add_argument("--kernel")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--cpus", type=int, default=1)
    # Under TCG guest time is host time: a busier host inflates task-clock (and the ticks
    # that preempt) in one boot but not the other. icount makes guest time instructions.
    ap.add_argument("--clock", choices=["icount", "wall"], default="icount")
    args = ap.parse_args()
    build = Path(args.build)
    initbench = str(build / "host/initbench")
    base = build / "initbench-x86_64.cpio.gz"
    kernel = args.kernel or subprocess.run([str(SOURCE / "scripts/fetch-debs.sh"), "kernel", "amd64"],
                                           check=True, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="initbench-perf-agreement-") as t:
        tmp = Path(t)
        perf = host_perf()
        experiments = {
            "initbench": f"cmd = {COMMAND}\nrepeat = {args.repeat}\nperf = {EVENTS}\n",
            # perf counts the command; initbench runs perf once, with its default counters.
            "perf": f"cmd = /payload/bin/perf stat -x, -r {args.repeat} -e {EVENTS} -- {COMMAND}\nrepeat = 1\n",
        }
        results = {}
        for name, text in experiments.items():
            (tmp / f"{name}.conf").write_text(text)
            image = tmp / f"{name}.cpio.gz"
            subprocess.run([initbench, "pack", "--image", str(base), "--program", f"{perf}:perf",
                            "--config", str(tmp / f"{name}.conf"), "-o", str(image)],
                           check=True, capture_output=True, text=True)
            results[name] = boot(initbench, kernel, image, args, tmp, name)
        ours = {c["event"]: c for c in results["initbench"]["counters"]}
        theirs = parse_perf_csv(results["perf"].get("output", ""))
        if not theirs:
            sys.exit("perf-agreement: no perf stat lines in the guest's output:\n" + results["perf"].get("output", ""))
        print(f"command: {COMMAND}")
        print(f"{args.repeat} runs each, {args.cpus} CPU, {os.uname().machine} TCG, clock {args.clock}")
        print(f"{'event':18} {'initbench mean':>16} {'+-':>7} {'perf stat mean':>16} {'+-':>7} {'diff':>8}")
        for event in EVENTS.split(","):
            o, p = ours.get(event, {}), theirs.get(event)
            if not o.get("supported") or p is None:
                print(f"{event:18} {'n/a':>16}")
                continue
            scale = 1e-6 if event == "task-clock" else 1  # perf prints task-clock in msec
            mine = o["mean"] * scale
            diff = 100 * (mine - p[0]) / p[0] if p[0] else float("nan")
            pct = "" if p[1] is None else f"{p[1]:.2f}%"
            print(f"{event:18} {mine:16.2f} {o.get('rel_stderr_pct', 0):6.2f}% {p[0]:16.2f} {pct:>7} {diff:+7.2f}%")


if __name__ == "__main__":
    main()
