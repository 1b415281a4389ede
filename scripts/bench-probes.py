#!/usr/bin/env python3
"""Probe overhead per event: a tight getppid() loop (the `syscall` load) with no probe, with
the floor (the `floor` probe: an empty entry and return program on the function, the least
any probe there costs) and funclat on the syscall (also with funclat.subtract=offcpu, whose
sched_switch program keeps each thread's switched-out time), each via fentry/fexit and via
kprobe/kretprobe, and with bpftrace's
equivalent (kfunc/kretfunc and kprobe/kretprobe recording each call's duration in a
histogram). Prints ns per call, the probe's cost per event, and how many events each probe
counted per call of the load, and funclat's cost as a multiple of the floor's by the same
mechanism; for funclat also the cost its record gives (the kernel's BPF run
statistics: its programs' run time per event) and its ratio to the cost measured here; then one
more boot with funclat and bpftrace attached together compares their counts of the same calls.
span and wakeups are set against their own floors (OTHERS below says how).

  scripts/bench-probes.py [--kernel VMLINUZ] [--clock icount|wall] [--duration S]
                          [--cli BUILD/host/initbench] [--image BASE.cpio.gz] [--no-bpftrace]

bpftrace is Debian's (apt-get install bpftrace): `initbench pack --program` packs the binary,
its libraries and the dynamic loader, and run.sh (under /payload/bpftrace, with the programs)
starts it as initbench.background before the phase. The phase waits until bpftrace has attached
(background.ready: BEGIN's printf is read only after every probe is attached), and
background.window_signal=USR1 marks the window's start and end in bpftrace's output and makes
it print its maps there: the window's count is the difference. Under TCG bpftrace needs a
while to start (LLVM compiles the program in the guest): the runs allow an hour.

Under --clock icount (default) guest time is instructions: the figures repeat boot to
boot, and they count the instructions a probe adds, not cache effects."""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# getppid() reaches __task_pid_nr_ns once per call; the __x64_sys_ wrappers are not in BTF.
FUNCTION = "__task_pid_nr_ns"
GUEST_DIR = "/payload/bpftrace"
READY = "initbench-bpftrace-attached"
# Runs the packed bpftrace (pack --program: /payload/libexec, /payload/lib) through its packed
# loader, linked where the binary looks for it, rather than through the /payload/bin wrapper,
# so that /proc/self/exe is bpftrace itself (its BEGIN probe may be a uprobe on it).
RUN_SH = """#!/bin/sh
mkdir -p /lib64
ln -sf /payload/lib/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
export LD_LIBRARY_PATH=/payload/lib
exec /payload/libexec/bpftrace "$@"
"""
# funclat's equivalent: each call's duration (entry to return, per thread) in a log2
# histogram, and the number of calls.
PROGRAM = """BEGIN { printf("%s\\n"); }
ENTRY { @start[tid] = nsecs; }
EXIT /@start[tid]/ {
    @ns = hist(nsecs - @start[tid]);
    @calls = count();
    delete(@start[tid]);
}
"""
BPFTRACE_MODES = {"kfunc": ("kfunc", "kretfunc"), "kprobe": ("kprobe", "kretprobe")}


def boot(cli, kernel, clock, duration, extra, run_args=(), load="syscall", calls_per_op=1024):
    """One boot of `load` with the probes `extra` asks for (the profile's funclat is off unless
    asked for): calls of the load per second, its calls, its first probe record and its
    background record; probe_records() then has every probe record of the boot."""
    global last_probes
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        own_funclat = any(p.startswith("initbench.funclat=") for p in extra)
        params = [f"initbench.phases={load}", "initbench.workers=1", f"initbench.duration={duration}",
                  "initbench.warmup=0.5", *([] if own_funclat else ["initbench.funclat="]), "nokaslr",
                  "norandmaps", *extra]
        subprocess.run([cli, "run", "--kernel", kernel, "--accel", "tcg", "--clock", clock, "--quiet",
                        *run_args, "--out", str(out), "--", *params], check=True)
        doc = json.loads(out.read_text())
    phase = [r for r in doc["records"] if r["type"] == "phase"][0]
    probe = [r for r in doc["records"] if r["type"] == "probe"]
    background = [r for r in doc["records"] if r["type"] == "background"]
    calls = phase["ops"] * calls_per_op
    rate = calls / phase["duration_s"]
    last_probes = probe
    return rate, calls, (probe[0] if probe else None), (background[0] if background else None)


last_probes = []


# The other probes against their floors. span hooks the entry of two functions: on the
# syscall load, span=F:F with F the function funclat's rows hook, both its programs run once a
# call, and the floor is an empty entry program twice on F. wakeups hooks the sched_wakeup
# tracepoint, and its floor is an empty tp_btf program there; no load here wakes a task once an
# operation as fast as it can (pipe's writer fills the pipe before its reader runs, sleep's are
# timed), so its cost per event cannot be measured by subtraction, and its row compares the
# programs' own run time (the kernel's BPF statistics, without the trampoline both pay).
# Each row: the probe, its load, its parameter, its floor's parameter, the events its record
# counts, and whether the cost can be measured by subtraction.
OTHERS = [
    ("span", "syscall", f"initbench.span={FUNCTION}:{FUNCTION}",
     f"initbench.floor=entry:{FUNCTION},entry:{FUNCTION}", lambda r: r["count"], True),
    ("wakeups", "pipe", "initbench.wakeups", "initbench.floor=tp_btf:sched_wakeup", lambda r: r["wakeups"], False),
]


def other_rows(a, kernel):
    """For each of OTHERS: its load alone, with the floor, with the probe; the cost per event
    of each, and the probe's as a multiple of the floor's (measured, or else recorded)."""
    rows = []
    for name, load, probe_param, floor_param, events_of, subtract in OTHERS:
        per_op = 1024 if load == "syscall" else 1
        base_rate, _, _, _ = boot(a.cli, kernel, a.clock, a.duration, [], load=load, calls_per_op=per_op)
        base_ns = 1e9 / base_rate
        rows.append((f"{load}, no probe", base_ns, None, None, None, None, None, None))
        floor = None
        for what, param in (("floor", floor_param), (name, probe_param)):
            rate, calls, _, _ = boot(a.cli, kernel, a.clock, a.duration, [param], load=load, calls_per_op=per_op)
            records = [r for r in last_probes if r["probe"] == what]
            if not records or not all(r.get("supported") for r in records):
                why = "; ".join(r.get("reason", "") for r in records) or "no record"
                rows.append((f"{what} ({load})", None, None, None, None, None, why, None))
                break
            ns = 1e9 / rate
            # The floor's events: the runs of one of its programs (each runs once an event).
            events = (min(p["runs"] for r in records for p in r["cost"]["programs"])
                      if what == "floor" else events_of(records[0]))
            measured = cost_per_event(ns, base_ns, events, calls) if subtract else None
            recorded = (sum(r["cost"]["ns"] for r in records) / events
                        if events and all(r["cost"].get("supported") for r in records) else None)
            if what == "floor":
                floor = measured if subtract else recorded
                times_floor = None
            else:
                mine = measured if subtract else recorded
                times_floor = mine / floor if floor and mine else None
            mechanism = ", ".join(sorted({r["mechanism"] for r in records}))
            label = f"{what} {mechanism} ({load}{'' if subtract else ', run time'})"
            rows.append((label, ns, measured, recorded, events, calls, None, times_floor))
    return rows


def bpftrace_kit(tmp: Path) -> Path:
    """run.sh and one program per mode, in tmp/bpftrace (bpftrace itself is packed by --program)."""
    kit = tmp / "bpftrace"
    kit.mkdir()
    (kit / "run.sh").write_text(RUN_SH)
    (kit / "run.sh").chmod(0o755)
    for mode, (entry, exit_) in BPFTRACE_MODES.items():
        text = PROGRAM.replace("ENTRY", f"{entry}:{FUNCTION}").replace("EXIT", f"{exit_}:{FUNCTION}")
        (kit / f"{mode}.bt").write_text(text % READY)
    return kit


def entry_runs(cost, mode):
    """How often the probe's entry program ran in the window (the kernel's BPF statistics)."""
    program = {"fentry": "fentry_entry", "kprobe": "kprobe_entry"}[mode]
    return sum(p["runs"] for p in cost.get("programs", []) if p["name"] == program) if cost.get("supported") else 0


def cost_per_event(ns, base_ns, events, calls):
    """The time a call took longer than without a probe, per event the probe counted."""
    return (ns - base_ns) * calls / events if events else None


def window_count(background):
    """@calls printed after the window_open and after the window_close mark: their difference."""
    at = {}
    mark = None
    for line in background["output"].splitlines():
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if "initbench" in j:
            mark = j["initbench"]
        elif j.get("type") == "map" and "@calls" in j.get("data", {}) and mark and mark not in at:
            at[mark] = j["data"]["@calls"]
    if set(at) != {"window_open", "window_close"}:
        raise ValueError(f"bpftrace printed no @calls after each window mark:\n{background['output'][-2000:]}")
    return at["window_close"] - at["window_open"]


def funclat_rows(a, kernel, base_ns):
    """The floor (empty programs) and funclat on FUNCTION (without and with subtract=offcpu),
    fentry and kprobe: their rows and the floor's cost per event for each mechanism."""
    rows, floors = [], {}
    for mode in ("fentry", "kprobe"):
        for name, subtract in (("floor", None), ("funclat", None), ("funclat", "offcpu")):
            extra = [f"initbench.{name}={FUNCTION}", f"initbench.attach={mode}"]
            if subtract:
                extra.append(f"initbench.funclat.subtract={subtract}")
            rate, calls, probe, _ = boot(a.cli, kernel, a.clock, a.duration, extra)
            label = f"{name}{' subtract=' + subtract if subtract else ''}"
            if not probe or not probe.get("supported"):
                rows.append((f"{label} {mode}", None, None, None, None, None, probe and probe.get("reason"), None))
                continue
            ns = 1e9 / rate
            cost = probe.get("cost", {})
            # The floor counts nothing: its entry program's runs are its events.
            events = probe["count"] if name == "funclat" else entry_runs(cost, mode)
            per_event = cost_per_event(ns, base_ns, events, calls)
            recorded = cost["ns"] / events if cost.get("supported") and events else None
            if name == "floor":
                floors[probe["mechanism"]] = per_event
            times_floor = per_event / floors[probe["mechanism"]] if floors.get(probe["mechanism"]) else None
            rows.append((f"{label} {probe['mechanism']}", ns, per_event, recorded, events, calls, None, times_floor))
    return rows, floors


def bpftrace_rows(a, kernel, image, base_ns, floors):
    """bpftrace, packed onto the image, in each of BPFTRACE_MODES; then bpftrace and funclat in
    one window. Returns the rows and (funclat's count, bpftrace's count, the load's calls)."""
    binary = shutil.which("bpftrace")
    if not binary:
        sys.exit("bench-probes: no bpftrace on this host: apt-get install bpftrace (or --no-bpftrace)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="initbench-bench-probes-") as t:
        tmp = Path(t)
        bpftrace_kit(tmp)
        packed = tmp / "bpftrace.cpio.gz"
        subprocess.run([a.cli, "pack", "--image", image, "--program", f"{binary}:bpftrace",
                        "--data", f"{tmp / 'bpftrace'}:{GUEST_DIR}", "-o", str(packed)],
                       check=True, capture_output=True, text=True)

        def with_bpftrace(mode, extra=()):
            return boot(a.cli, kernel, a.clock, a.duration,
                        [f'initbench.background="{GUEST_DIR}/run.sh -f json {GUEST_DIR}/{mode}.bt"',
                         f"initbench.background.ready={READY}", "initbench.background.window_signal=USR1",
                         "initbench.background.record=1", "initbench.background.ready_timeout=3000",
                         "initbench.timeout=3500", *extra],
                        ["--image", str(packed), "--memory", "2048", "--timeout", "3600"])

        for mode, (entry, exit_) in BPFTRACE_MODES.items():
            rate, calls, _, background = with_bpftrace(mode)
            name = f"bpftrace {entry}/{exit_}"
            if not background:
                rows.append((name, None, None, None, None, None, "no background record", None))
                continue
            ns = 1e9 / rate
            events = window_count(background)
            per_event = cost_per_event(ns, base_ns, events, calls)
            floor = floors.get("fentry/fexit") if entry == "kfunc" else floors.get("kprobe/kretprobe")
            rows.append((name, ns, per_event, None, events, calls, None,
                         per_event / floor if floor and per_event else None))
            print(f"{name}: attached {background['ready_s']:.1f} s after its start", file=sys.stderr)
        # Both at once, on the same calls: do they count the same events?
        _, calls, probe, background = with_bpftrace("kfunc", [f"initbench.funclat={FUNCTION}",
                                                              "initbench.attach=fentry"])
        return rows, (probe["count"], window_count(background), calls)


def print_table(clock, kernel, rows, same_window):
    print(f"clock {clock}, kernel {Path(kernel).name}, {FUNCTION}")
    print(f"{'setup':44} {'ns/call':>9} {'probe ns/event':>15} {'record ns/event':>16} {'record/measured':>16} "
          f"{'events':>10} {'calls':>10} {'events/calls':>13} {'x floor':>8}")
    blank = lambda w: " " * w
    for name, ns, cost, recorded, events, calls, why, times_floor in rows:
        if ns is None:
            print(f"{name:44} unsupported: {why}")
            continue
        print(f"{name:44} {ns:9.1f} {blank(15) if cost is None else f'{cost:15.1f}'}"
              f" {blank(16) if recorded is None else f'{recorded:16.1f}'}"
              f" {blank(16) if recorded is None or not cost else f'{recorded / cost:16.3f}'}"
              + ("" if events is None else f" {events:10d} {calls:10d} {events / calls:13.4f}")
              + ("" if times_floor is None else f" {times_floor:8.2f}"))
    if same_window:
        funclat, bpftrace, calls = same_window
        print(f"one window, both probes: funclat fentry/fexit {funclat}, bpftrace kfunc/kretfunc {bpftrace} "
              f"({bpftrace - funclat:+d}, {100 * (bpftrace - funclat) / funclat:+.3f} %), load calls {calls}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel")
    ap.add_argument("--cli", default=str(ROOT / "build/host/initbench"))
    ap.add_argument("--image", help="base image to pack bpftrace onto (default: the one beside --cli's build)")
    ap.add_argument("--clock", default="icount", choices=["icount", "wall"])
    ap.add_argument("--duration", default="2")
    ap.add_argument("--no-bpftrace", action="store_true", help="only initbench's own probes")
    a = ap.parse_args()
    kernel = a.kernel or subprocess.run([str(ROOT / "scripts/fetch-debs.sh"), "kernel", "amd64"], check=True,
                                        capture_output=True, text=True).stdout.strip()
    image = a.image or str(Path(a.cli).resolve().parents[1] / "initbench-x86_64.cpio.gz")
    base_rate, _, _, _ = boot(a.cli, kernel, a.clock, a.duration, [])
    base_ns = 1e9 / base_rate
    rows = [("no probe", base_ns, None, None, None, None, None, None)]
    more, floors = funclat_rows(a, kernel, base_ns)
    rows += more + other_rows(a, kernel)
    same_window = None
    if not a.no_bpftrace:
        more, same_window = bpftrace_rows(a, kernel, image, base_ns, floors)
        rows += more
    print_table(a.clock, kernel, rows, same_window)
    return 0


if __name__ == "__main__":
    sys.exit(main())
