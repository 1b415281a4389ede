#!/usr/bin/env bash
# initbench's fork, thread and cpu loads beside Debian's stress-ng --fork, --pthread and --cpu,
# in ONE boot of a kernel under QEMU: stress-ng is packed into the image with
# `initbench pack --program` and runs as external loads (load.NAME, its --metrics-brief
# bogo-ops/s as the metric), each phase next to initbench's load of the same kind, with the
# same workers and duration. Prints both rates, the ratio initbench / stress-ng, and the CPU
# each used. A benchmark, not a test: the figures are only as steady as the host is quiet.
#
#   scripts/bench-stress-ng.sh [-b BUILD_DIR] [-k KERNEL] [-d SECONDS] [-w WORKERS] [-c CPUS]
#                              [-r ROUNDS] [-t THREADS] [-m continuous|batch] [-o RESULTS.json]
#   default: -b build -k "$(scripts/fetch-debs.sh kernel amd64)" -d 10 -w 1 -c 1 -r 1 -t 4
#            -m continuous
#
# -t is both stress-ng's --pthread-max and initbench's thread.threads; -m is initbench's
# thread.mode (stress-ng 0.15's --pthread-max makes batches: see docs/loads.md).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build kernel="" seconds=10 workers=1 cpus=1 rounds=1 threads=4 mode=continuous out=""
usage() { sed -n '/^#   scripts/,/^#            -m/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while getopts b:k:d:w:c:r:t:m:o:h opt; do
  case $opt in
    b) build=$OPTARG ;; k) kernel=$OPTARG ;; d) seconds=$OPTARG ;; w) workers=$OPTARG ;;
    c) cpus=$OPTARG ;; r) rounds=$OPTARG ;; t) threads=$OPTARG ;; m) mode=$OPTARG ;;
    o) out=$OPTARG ;; *) usage ;;
  esac
done
((OPTIND > $#)) || usage
for n in "$seconds" "$workers" "$cpus" "$rounds" "$threads"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: '$n' is not a whole number >= 1" >&2; exit 2; }
done
[[ $mode == continuous || $mode == batch ]] || usage

cli=$build/host/initbench image=$build/initbench-x86_64.cpio.gz
[[ -x $cli && -f $image ]] || { echo "$0: no $cli or $image: build first" >&2; exit 2; }
stress_ng=$(command -v stress-ng) || { echo "$0: no stress-ng: apt-get install stress-ng" >&2; exit 2; }
[[ -n $kernel ]] || kernel=$("$here/scripts/fetch-debs.sh" kernel amd64)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -n $out ]] || out=$tmp/results.json

# One kind after the other (stress-ng, then initbench), so that a change in the host's load
# hits both sides of a pair alike. A stress-ng load's metric is the last number of its
# --metrics-brief line but one: bogo ops/s over real time.
brief='+[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)'
cat > "$tmp/experiment.conf" << EOF
description = stress-ng beside initbench's fork, thread and cpu (scripts/bench-stress-ng.sh)
phases = sngfork, fork, sngpthread, thread, sngcpu, cpu
duration = $seconds
warmup = 0
rounds = $rounds
workers = $workers
thread.threads = $threads
thread.mode = $mode
load.sngfork = stress-ng --fork {workers} -t {duration} --metrics-brief
load.sngfork.metric = fork $brief
load.sngfork.unit = bogo-ops/s
load.sngpthread = stress-ng --pthread {workers} --pthread-max $threads -t {duration} --metrics-brief
load.sngpthread.metric = pthread $brief
load.sngpthread.unit = bogo-ops/s
load.sngcpu = stress-ng --cpu {workers} -t {duration} --metrics-brief
load.sngcpu.metric = cpu $brief
load.sngcpu.unit = bogo-ops/s
EOF

"$cli" pack --image "$image" --program "$stress_ng" --config "$tmp/experiment.conf" \
  -o "$tmp/image.cpio.gz" > /dev/null
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Six phases per round, each with a program start and stop under TCG: allow a minute each.
rc=0
"$cli" run --kernel "$kernel" --image "$tmp/image.cpio.gz" --cpus "$cpus" --quiet \
  --timeout $((120 + 6 * rounds * (seconds + 60))) --out "$out" || rc=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
if ((rc > 1)) || [[ ! -s $out ]]; then
  echo "$0: initbench run exited $rc" >&2
  exit 1
fi

python3 - "$out" "$($stress_ng --version | cut -d' ' -f1-3)" "$load_before" "$load_after" \
  "$seconds" "$workers" "$cpus" "$rounds" "$threads" "$mode" << 'EOF'
import json, re, statistics, sys

out, version, load_before, load_after = sys.argv[1:5]
seconds, workers, cpus, rounds, threads = map(int, sys.argv[5:10])
mode = sys.argv[10]
doc = json.load(open(out))
records = doc.get("records", [])
phases = [r for r in records if r.get("type") == "phase"]
errors = [r for r in records if r.get("type") == "error"]
kernel = next((r.get("kernel", {}).get("release") for r in records if r.get("type") == "header"), None)

def cpu_share(p):
    cpu = p.get("cpu") or {}
    return (cpu.get("user_s", 0) + cpu.get("sys_s", 0)) / p["duration_s"]

def tasks_per_op(p, rate):
    # The kernel's own count: forks and clones in the guest over the window, per operation.
    return p.get("tasks", {}).get("created", 0) / max(rate * p["duration_s"], 1e-9)

def ours(name):
    rows = [p for p in phases if p["phase"] == name and "ops_per_s" in p.get("metrics", {})]
    return ([p["metrics"]["ops_per_s"]["value"] for p in rows],
            [cpu_share(p) for p in rows], [p["ops"] / max(cpu_share(p) * p["duration_s"], 1e-9) for p in rows],
            [tasks_per_op(p, p["metrics"]["ops_per_s"]["value"]) for p in rows])

def theirs(name, stressor):
    # The rate is the load's metric; the per-CPU-second rate is stress-ng's own last column
    # (bogo ops over the stressor processes' user + system time), from the output's tail.
    line = re.compile(stressor + r" +([0-9]+) +([0-9.]+) +([0-9.]+) +([0-9.]+) +([0-9.]+) +([0-9.]+)")
    rate, share, per_cpu, tasks = [], [], [], []
    for p in phases:
        if p["phase"] != name or "result" not in p.get("metrics", {}):
            continue
        rate.append(p["metrics"]["result"]["value"])
        share.append(cpu_share(p))
        m = line.findall(p.get("program", {}).get("output_tail", ""))
        per_cpu.append(float(m[-1][5]) if m else float("nan"))
        tasks.append(tasks_per_op(p, rate[-1]))
    return rate, share, per_cpu, tasks

def hmean(xs):
    xs = [x for x in xs if x == x]
    return statistics.harmonic_mean(xs) if xs and min(xs) > 0 else float("nan")

def amean(xs):
    return sum(xs) / len(xs) if xs else float("nan")

print(f"{kernel or '?'} under QEMU ({doc.get('host', {}).get('accel', '?')}), {cpus} CPU(s), "
      f"{workers} worker(s), {seconds} s per phase, {rounds} round(s), {version}")
print(f"host load average before {load_before}, after {load_after}")
print(f"{'kind':8} {'stress-ng/s':>11} {'CPU':>5} {'per CPU-s':>10} {'tasks':>5}  {'initbench/s':>11} {'CPU':>5} "
      f"{'per CPU-s':>10} {'tasks':>5}  {'rate':>5} {'per CPU':>7}")
rows = [("fork", "sngfork", "fork", "fork"), ("pthread", "sngpthread", "pthread", "thread"),
        ("cpu", "sngcpu", "cpu", "cpu")]
for kind, sng, stressor, ib in rows:
    t_rate, t_share, t_eff, t_tasks = theirs(sng, stressor)
    o_rate, o_share, o_eff, o_tasks = ours(ib)
    t_r, o_r, t_e, o_e = hmean(t_rate), hmean(o_rate), hmean(t_eff), hmean(o_eff)
    if kind == "cpu":  # different work per operation: a ratio would mean nothing
        ratio, eff_ratio = "   —", "     —"
    else:
        ratio, eff_ratio = f"{o_r / t_r:5.2f}", f"{o_e / t_e:7.2f}"
    print(f"{kind:8} {t_r:11.1f} {100 * amean(t_share):4.0f}% {t_e:10.1f} {amean(t_tasks):5.2f}  {o_r:11.1f} "
          f"{100 * amean(o_share):4.0f}% {o_e:10.1f} {amean(o_tasks):5.2f}  {ratio:>5} {eff_ratio:>7}")
print("CPU: the load's cgroup's user + system time over the window (100% = one CPU). rate and per CPU:")
print("initbench / stress-ng. per CPU-s: operations per CPU-second (stress-ng's: its own usr+sys column).")
print("tasks: forks and clones in the guest per operation (tasks.created, the kernel's count).")
print("fork: one fork + exit + wait both (stress-ng's child also calls setsid, vhangup, setpgid x4,")
print(f"sched_yield). pthread: one thread created, ended and joined both; stress-ng makes batches of")
print(f"{threads} threads held until all run, initbench thread.mode={mode} with thread.threads={threads}.")
print("cpu: different work per operation (stress-ng: one pass of a --cpu method; initbench: 4096")
print("xorshift steps with random writes to 256 KiB): compare the CPU column, not the rates.")
for e in errors:
    print(f"error: {e.get('what')}: {e.get('reason')}", file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
