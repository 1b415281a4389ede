#!/usr/bin/env python3
"""How the host keeps up with a lab: `compare` and `report` of N results documents a side
(N = 10, 100, 1000 by default), and `parse` of a console flood. A benchmark, not a test: it
prints a table of wall time and peak memory (each command's own maximum resident set).

The documents are one real run (a saved console log, parsed) copied N times a side with a
fresh run id each and the metrics jittered (2 %, seeded), the second side 5 % slower, so that
compare's statistics have work to do. The flood is the same run's log with M MB of kernel
chatter between its records, which `parse` must skip with memory that does not grow with it.
Each report page is also opened in Debian's headless chromium (when installed): the page's own
clock (performance.now()) from navigation to the first frame after its load event, the median
of three openings.

  scripts/bench-scale.py [--sizes 10,100,1000] [--flood-mb 100] [--cli build/host/initbench]
                         [--log tests/fuzz/corpus/log/x86_64-probes.log] [--no-report]"""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(argv):
    """Wall seconds and peak RSS in MB of one command, which must succeed (exit 0) or, for
    compare, find changes (exit 1)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"bench-scale: {' '.join(argv[:2])} exited {code}: {proc.stderr.read().decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def jittered(doc, rng, scale, run_id):
    """A copy of the run with another run id and every metric value moved by a few percent."""
    records = []
    for r in doc["records"]:
        r = dict(r)
        if r.get("type") == "header":
            r["run_id"] = run_id
        if isinstance(r.get("metrics"), dict):
            r["metrics"] = {k: dict(m, value=m["value"] * scale * rng.gauss(1, 0.02))
                            if isinstance(m, dict) and isinstance(m.get("value"), (int, float)) else m
                            for k, m in r["metrics"].items()}
        records.append(r)
    return dict(doc, records=records)


def make_side(doc, directory, n, rng, scale, side):
    directory.mkdir()
    for i in range(n):
        out = jittered(doc, rng, scale, f"{side:08x}{i:024x}")
        (directory / f"r{i:05d}.json").write_text(json.dumps(out))


# Appended to a copy of the page: once loaded and drawn, it prints its clock to the console.
OPENED = ("<script>addEventListener('load', () => requestAnimationFrame(() => setTimeout(() => "
          "console.log('initbench-opened ' + performance.now()))))</script>")


def opened_seconds(page, tmp):
    """Median seconds of three openings of `page` in headless chromium, as the page measures
    them; None without chromium, or when an opening reports no time."""
    chromium = shutil.which("chromium")
    if not chromium:
        return None
    probe = tmp / "opened.html"
    probe.write_text(page.read_text() + OPENED)
    times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory(prefix="initbench-chromium-") as profile:
            r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                                "--virtual-time-budget=60000", "--dump-dom", f"file://{probe}"],
                               capture_output=True, text=True, timeout=300)
        found = re.search(r"initbench-opened ([0-9.]+)", r.stderr)
        if not found: # not drawn within chromium's time, or not opened: no figure, not 0
            print(f"bench-scale: chromium reported no time for {page.name} (exit {r.returncode})", file=sys.stderr)
            return None
        times.append(float(found.group(1)) / 1000)
    return statistics.median(times)


def flood_log(log_text, megabytes, path):
    """The run's records with kernel chatter between them, MEGABYTES in all."""
    chatter = "[ 1234.567890] a kernel line of chatter that no record starts with, as a flood has\n"
    lines = log_text.splitlines(keepends=True)
    per_gap = max(1, megabytes * 1024 * 1024 // len(chatter) // max(1, len(lines)))
    with open(path, "w") as f:
        for line in lines:
            f.write(chatter * per_gap)
            f.write(line)
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=str(ROOT / "build/host/initbench"))
    ap.add_argument("--log", default=str(ROOT / "tests/fuzz/corpus/log/x86_64-probes.log"))
    ap.add_argument("--sizes", default="10,100,1000")
    ap.add_argument("--flood-mb", type=int, default=100)
    ap.add_argument("--no-report", action="store_true", help="compare and parse only")
    a = ap.parse_args()
    rng = random.Random(1)
    rows = []
    with tempfile.TemporaryDirectory(prefix="initbench-bench-scale-") as t:
        tmp = Path(t)
        seed = tmp / "seed.json"
        subprocess.run([a.cli, "parse", a.log, "--out", str(seed), "--quiet"], check=False)
        doc = json.loads(seed.read_text())
        for n in (int(x) for x in a.sizes.split(",")):
            base, new = tmp / f"base{n}", tmp / f"new{n}"
            make_side(doc, base, n, rng, 1.0, 1)
            make_side(doc, new, n, rng, 0.95, 2)
            s, mb = timed([a.cli, "compare", str(base), str(new), "--format", "json"])
            rows.append((f"compare {n} vs {n}", s, mb, ""))
            if not a.no_report:
                page = tmp / f"report{n}.html"
                s, mb = timed([a.cli, "report", str(base), str(new), "-o", str(page)])
                opened = opened_seconds(page, tmp)
                shown = ", opening not timed" if opened is None else f", opens in {opened:.2f} s"
                rows.append((f"report {n} vs {n}", s, mb, f"page {page.stat().st_size / 1e6:.2f} MB{shown}"))
        flood = tmp / "flood.log"
        size = flood_log(Path(a.log).read_text(errors="replace"), a.flood_mb, flood)
        s, mb = timed([a.cli, "parse", str(flood), "--out", str(tmp / "flood.json"), "--quiet"])
        rows.append((f"parse a {size / 1e6:.0f} MB flood", s, mb, f"{size / 1e6 / s:.0f} MB/s"))
    print(f"bench-scale: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, {Path(a.log).name}")
    print(f"{'what':28} {'seconds':>9} {'peak MB':>9}  note")
    for what, s, mb, note in rows:
        print(f"{what:28} {s:9.2f} {mb:9.1f}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
