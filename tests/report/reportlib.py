"""Results documents for the report tests, made from the saved console logs, and the page
parsed into what the tests check."""
import copy
import json
import os
import subprocess
import tempfile
from html.parser import HTMLParser

INITBENCH = os.environ.get("INITBENCH", "initbench")
SOURCE = os.environ.get("INITBENCH_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(SOURCE, "tests", "fuzz", "corpus", "log")


def parse_log(name, out_dir):
    """`initbench parse` of a saved log: the results document a lab would have."""
    out = os.path.join(out_dir, name.replace(".log", ".json"))
    subprocess.run([INITBENCH, "parse", os.path.join(CORPUS, name), "--out", out, "--quiet"],
                   check=False, capture_output=True)
    with open(out) as f:
        return out, json.load(f)


def with_counters(doc, run_id, scale):
    """The probes run again: another run id, rates scaled, perf stat's records per phase
    (one counter unsupported, as under TCG) and a kernel WARN record."""
    doc = copy.deepcopy(doc)
    records = []
    for r in doc["records"]:
        r = copy.deepcopy(r)
        if r.get("type") == "header":
            r["run_id"] = run_id
        if r.get("type") == "phase" and "metrics" in r:
            for m in r["metrics"].values():
                m["value"] *= scale
            r["samples"]["ops_per_s"] = [x * scale for x in r["samples"]["ops_per_s"]]
        records.append(r)
        if r.get("type") == "phase":
            records.append({"type": "probe", "probe": "perf", "phase": r["phase"], "round": r.get("round", 0),
                            "v": 1, "supported": True, "scope": "task", "elapsed_s": 1.0, "counters": [
                                {"event": "task-clock", "supported": True, "unit": "ns", "counted": True,
                                 "value": 7.0e8 * scale, "running_pct": 100.0,
                                 "derived": {"value": 0.7 * scale, "unit": "CPUs utilized"}},
                                {"event": "page-faults", "supported": True, "unit": "", "counted": True,
                                 "value": 5791, "running_pct": 100.0, "derived": {"value": 4147.3, "unit": "/sec"}},
                                {"event": "cycles", "supported": False, "errno": 2,
                                 "reason": "not supported: No such file or directory (errno 2)"}]})
    end = records.pop()
    records.append({"type": "kernel", "v": 1, "kind": "WARN", "time_s": 3.2, "line": 1,
                    "context": "WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:5525 __alloc_pages+0x1/0x2"})
    records.append(end)
    doc["records"] = records
    return doc


def with_host(doc, kernel_sha):
    """The host facts `initbench run` adds (a parsed log has only its source)."""
    doc = copy.deepcopy(doc)
    doc["host"] = {"accel": "tcg", "arch": "x86_64", "clock": "wall", "cpus": 1, "memory_mb": 1024,
                   "kernel": {"path": "vmlinuz", "sha256": kernel_sha},
                   "image": {"path": "initbench-x86_64.cpio.gz", "sha256": "ab" * 32},
                   "boot": {"protocol": "pvh", "vmlinux_build_id": "6a2b4ac77585b8cf102cba771300e573c8489b69"},
                   "qemu_argv": ["qemu-system-x86_64", "-accel", "tcg", "-kernel", "vmlinuz"]}
    return doc


def write(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def report(sides, out, env=None):
    r = subprocess.run([INITBENCH, "report", *sides, "-o", out], capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    with open(out) as f:
        return r, f.read()


class Page(HTMLParser):
    """The figures, tables, links and scripts of a report page."""

    def __init__(self, html):
        super().__init__()
        self.figures = []      # (data-plot, data-id, has svg)
        self.tables = []       # class names
        self.urls = []         # src/href values
        self.scripts = []      # script tags' attributes
        self.row_heads = []    # <th> texts in the identity table
        self.metric_tables = []  # per table.metrics, each row's metric id (its first titled cell)
        self.side_means = {}   # metric id: each side's cell, its bold number's text (None: no number)
        self._row_id = None
        self._in_val = self._in_mean = False
        self.text = []
        self._figure = None
        self._in_identity = False
        self._th = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href"):
            if key in a:
                self.urls.append(a[key])
        if tag == "script":
            self.scripts.append(a)
        if tag == "figure":
            self._figure = [a.get("data-plot"), a.get("data-id"), False]
            self.figures.append(self._figure)
        if tag == "svg" and self._figure is not None:
            self._figure[2] = True
        if tag == "table":
            self.tables.append(a.get("class", ""))
            self._in_identity = a.get("class") == "identity"
            if a.get("class") == "metrics":
                self.metric_tables.append([])
            self._row_id = [] if a.get("class") == "metrics" else None
        if tag == "tr" and self._row_id is not None:
            self._row_id = []
        if tag == "td" and self._row_id == [] and "title" in a:
            self._row_id.append(a["title"])
            self.metric_tables[-1].append(a["title"])
        elif tag == "td" and self._row_id and "val" in a.get("class", "").split():
            self.side_means.setdefault(self._row_id[0], []).append(None)
            self._in_val = True
        if tag == "b" and self._in_val:
            self._in_mean = True
        if tag == "th" and self._in_identity:
            self._th = ""

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figure = None
        if tag == "td":
            self._in_val = False
        if tag == "b":
            self._in_mean = False
        if tag == "table":
            self._in_identity = False
            self._row_id = None
        if tag == "th" and self._th is not None:
            self.row_heads.append(self._th.strip())
            self._th = None

    def handle_data(self, data):
        self.text.append(data)
        if self._in_mean:
            means = self.side_means[self._row_id[0]]
            means[-1] = (means[-1] or "") + data
        if self._th is not None:
            self._th += data


def temp_dir():
    return tempfile.TemporaryDirectory(prefix="initbench-report-test-")
