"""docs/schema/: every schema is a valid Draft 2020-12 schema; every saved console log under
tests/, parsed by the built CLI, gives a results document (and records) that the schemas
accept; and the schemas refuse what the guest never writes (they are not trivially open).

INITBENCH: the built CLI (set by ctest); INITBENCH_SOURCE: the source tree."""
import copy
import fnmatch
import functools
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("INITBENCH_SOURCE", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(SOURCE / "tests/boot"))

import schema_check  # noqa: E402
from jsonschema import Draft202012Validator  # noqa: E402

INITBENCH = os.environ.get("INITBENCH", str(SOURCE / "build/host/initbench"))


def saved_logs():
    """Every console log kept under tests/ (the fuzz corpus, and any other *.log)."""
    return sorted(p for p in (SOURCE / "tests").rglob("*.log") if p.is_file())


def parse(log):
    with tempfile.TemporaryDirectory(prefix="initbench-schema-") as tmp:
        out = Path(tmp) / "results.json"
        p = subprocess.run([INITBENCH, "parse", str(log), "--out", str(out), "--quiet"],
                           capture_output=True, text=True, timeout=60)
        if not out.exists():
            raise AssertionError(f"parse {log} wrote no document (exit {p.returncode}): {p.stderr}")
        return p.returncode, json.loads(out.read_text())


def valid(instance, name):
    return schema_check.validator(name).is_valid(instance)


@functools.lru_cache(maxsize=None)
def generated_defs():
    """The definitions `initbench schema` makes from the declarations (bpf/X/X_probe.h,
    common/record_decls.h, payload/X/load.json)."""
    return json.loads(subprocess.run([INITBENCH, "schema"], check=True, capture_output=True, text=True,
                                     timeout=60).stdout)


# A minimal complete run in the shape of version 2 (still read; version 3 adds metrics, see
# test_version_3_metrics), for the negative cases.
HEADER = {
    "v": 2, "type": "header", "run_id": "0123456789abcdef0123456789abcdef", "initbench": "0.1.0",
    "arch": "x86_64", "consoles": ["ttyS0"],
    "kernel": {"release": "6.1.0-57-amd64", "version": "#1 SMP", "machine": "x86_64",
               "build_id": "6a2b4ac77585b8cf102cba771300e573c8489b69", "cmdline": "console=ttyS0",
               "cpu_model": "QEMU TCG CPU", "cpus_online": 1, "memory_mb": 960, "btf": True,
               "uptime_at_init_s": 3.4},
    "config": {"values": {"duration": 1.0, "phases": ["none", "fork"], "wakeups": True, "rounds": 1},
               "sources": {"duration": "cmdline", "phases": "profile:default"},
               "profiles": ["default"], "description": "fork"},
}
FUNCLAT = {
    "v": 2, "type": "probe", "probe": "funclat", "phase": "fork", "round": 0, "function": "kernel_clone",
    "subtract": "none", "supported": True, "mechanism": "fentry/fexit", "unit": "ns", "count": 3, "sum": 30,
    "min": 5, "max": 15, "avg": 10.0, "entries": 3, "missed": 0, "percentiles": {"p50": 10.0},
    "log2": [[4, 1], [8, 2]],
    "linear": {"unit": "us", "min": 0.0, "step": 50.0, "max": 1000.0, "under": 0, "over": 0, "buckets": [3] + [0] * 19},
}
PHASE = {
    "v": 2, "type": "phase", "phase": "fork", "round": 0,
    "load": {"name": "fork", "op_unit": "fork+exit+wait", "params": {"workers": 1}},
    "limits": {"tasks": 20000, "memory_mb": 700}, "startup_s": 0.1, "duration_s": 1.0, "warmup_s": 0.0,
    "tasks": {"created": 10, "leftover": 0, "reaped": 1, "running_after_stop": 0},
    "ops": 10, "ops_per_worker": [10],
    "metrics": {"ops_per_s": {"value": 10.0, "unit": "fork+exit+wait/s", "agg": "hmean", "better": "higher"},
                "ops_per_s_per_worker": {"value": 10.0, "unit": "fork+exit+wait/s", "agg": "hmean",
                                         "better": "higher"}},
    "cpu": {"user_s": 0.1, "sys_s": 0.5, "source": "cgroup cpu.stat, measured window"},
    "stop_s": 0.01, "cgroup": "/initbench-load-1",
    "failures": {"task_create": 0, "task_limit_hits": 0, "oom_kills": 0},
    "samples": {"interval_s": 0.25, "ops_per_s": [10.0, 10.0, 10.0, 10.0]},
}
END = {"v": 2, "type": "end", "records": 3, "digest": "0badc0de", "status": "ok",
       "overhead": {"run_s": 3.0}, "console_bytes": 5000}
DOC = {
    "initbench_results": 1, "verdict": "ok", "exit_code": 0, "reason": "complete",
    "log": {"status": "complete",
            "counts": {"records": 4, "damaged": 0, "missing": 0, "duplicates": 0, "after_end": 0, "unlisted": 0,
                       "kernel_events": 0, "text_after_record": 0, "rejoined": 0, "lines": 4},
            "damaged": [], "missing": [], "duplicates": [], "after_end": [], "cut_off": None,
            "end": {"found": True, "seq": 3, "line": 4, "records": 3, "digest": "0badc0de", "count_ok": True,
                    "digest_ok": True},
            "runs": {"seen": 1, "kept": 0, "statuses": ["complete"], "first_line": 1, "last_line": 4},
            "kernel_events": []},
    "host": {"source": "console.log"},
    "records": [HEADER, PHASE, FUNCLAT, END],
}


class SchemaFiles(unittest.TestCase):
    def test_every_schema_is_valid_draft_2020_12(self):
        docs = schema_check.schemas()
        self.assertIn("results.schema.json", docs)
        self.assertIn("records.schema.json", docs)
        for name, schema in docs.items():
            with self.subTest(schema=name):
                Draft202012Validator.check_schema(schema)
                self.assertEqual(schema["$schema"], "https://json-schema.org/draft/2020-12/schema")
                self.assertEqual(schema["$id"], "https://initbench.invalid/schema/" + name)

    def test_generated_definitions_are_the_declarations(self):
        # load_params follows from the loads' declarations (payload/X/X_load.h): a load that
        # shows a new parameter needs no schema edit by hand, only scripts/schema-defs.py.
        generated = generated_defs()
        defs = json.loads((SOURCE / "docs/schema/defs.schema.json").read_text())["$defs"]
        self.assertIn("load_params", generated)
        for name, definition in generated.items():
            self.assertEqual(defs.get(name), definition,
                             f"docs/schema/defs.schema.json's {name} is not what the declarations say: "
                             "run scripts/schema-defs.py")

    def test_every_record_type_has_a_schema(self):
        # record types as records.schema.json dispatches them; one file each
        types = schema_check.schemas()["records.schema.json"]["properties"]["type"]["enum"]
        for t in types:
            self.assertIn(f"record-{t}.schema.json", schema_check.schemas(), t)


class SavedLogs(unittest.TestCase):
    def test_saved_logs_give_valid_documents(self):
        logs = saved_logs()
        self.assertGreaterEqual(len(logs), 7, "the fuzz corpus' logs are missing")
        complete = 0
        for log in logs:
            with self.subTest(log=str(log.relative_to(SOURCE))):
                code, doc = parse(log)
                self.assertEqual(code, doc["exit_code"])
                schema_check.validate_results(doc)
                for i, record in enumerate(doc["records"]):
                    problems = schema_check.errors(record, "records.schema.json")
                    self.assertFalse(problems, f"record {i} ({record.get('type')}): {problems}")
                complete += doc["log"]["status"] == "complete"
        self.assertGreaterEqual(complete, 4, "fewer complete runs among the saved logs than expected")

    def test_saved_results_documents(self):
        for path in sorted((SOURCE / "tests/fuzz/corpus/results").glob("*.json")):
            with self.subTest(doc=path.name):
                schema_check.validate_results(json.loads(path.read_text()))


def record_kind(r):
    """The type, and the kind its declaration is chosen by: a probe record's probe, a command's kind."""
    field = {"probe": "probe", "command": "kind"}.get(r.get("type"))
    return r.get("type") + (":" + r.get(field, "?") if field else "")


@functools.lru_cache(maxsize=None)
def saved_records():
    """One record of each kind and set of fields a saved log: the rest repeat it."""
    records = []
    for log in saved_logs():
        _, doc = parse(log)
        shapes = {}
        for record in doc["records"]:
            shapes.setdefault((record_kind(record), frozenset(record)), record)
        records.extend(shapes.values())
    return records


def field_paths(node, path=()):
    """Every key of a record, nested ones too, as tuples."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield path + (k,)
            yield from field_paths(v, path + (k,))


# What a probe's BPF programs cost, as version 3 records it beside what the probe measured.
COST = {"supported": True, "method": "BPF_ENABLE_STATS", "runs": 1000, "ns": 50000, "ns_per_run": 50.0,
        "cpu_pct": 0.01, "programs": [{"name": "kernel_clone_entry", "runs": 1000, "ns": 50000}]}

# A record of each declared kind no saved log has (none of their boots ran a command, a
# background program, floor or softirq, nor met a kernel event or an error), as the guest
# writes it at version 3 (docs/counters.md, docs/tracers.md); at_version_3 adds its metrics.
MADE = [
    {"v": 3, "type": "probe", "probe": "floor", "phase": "fork", "round": 0, "supported": True,
     "function": "kernel_clone", "mechanism": "fentry/fexit", "cost": COST},
    {"v": 3, "type": "probe", "probe": "softirq", "phase": "fork", "round": 0, "supported": True,
     "mechanism": "raw_tp/softirq_entry", "unit": "ns", "count": 120, "time": 240000, "avg": 2000.0, "max": 9000,
     "wait": {"count": 100, "avg": 500.0, "max": 3000},
     "vectors": [{"vector": "timer", "count": 120, "time": 240000, "max": 9000, "avg": 2000.0, "wait_avg": 500.0,
                  "wait_max": 3000}],
     "percentiles": {"p50": 1500.0, "p90": 4000.0, "p99": 8000.0}, "log2": [[1024, 80], [4096, 40]], "cost": COST},
    {"v": 3, "type": "command", "kind": "exec", "command": "busybox find /sys/kernel -maxdepth 2",
     "argv": ["busybox", "find", "/sys/kernel", "-maxdepth", "2"], "path": "/bin/busybox", "repeat": 2, "pin": [0],
     "scope": "task", "runs": [{"elapsed_s": 0.0212, "exit": 0}, {"elapsed_s": 0.0218, "exit": 0}],
     "elapsed_s": {"values": [0.0212, 0.0218], "mean": 0.0215, "stddev": 0.0004, "rel_stderr_pct": 1.4, "unit": "s"},
     "counters": [{"event": "task-clock", "supported": True, "unit": "ns", "values": [20000000, 20400000],
                   "counted_runs": 2, "mean": 20200000.0, "stddev": 280000.0, "rel_stderr_pct": 1.0,
                   "running_pct": 100.0, "derived": {"value": 0.94, "unit": "CPUs utilized"}},
                  {"event": "cycles", "supported": False, "errno": 2,
                   "reason": "not supported: No such file or directory (errno 2)"}],
     "output": "/sys/kernel\n"},
    {"v": 3, "type": "command", "kind": "module", "module": "/payload/test_vmalloc.ko", "params": "run_test_mask=1",
     "module_name": "test_vmalloc", "params_read": {"run_test_mask": "1"}, "repeat": 2, "pin": None, "scope": "task",
     "runs": [{"elapsed_s": 0.5, "loaded": True, "unloaded": True, "unload_s": 0.01},
              {"elapsed_s": 0.4, "loaded": False, "errno": 11, "error": "Resource temporarily unavailable"}],
     "elapsed_s": {"values": [0.5, 0.4], "mean": 0.45, "stddev": 0.07, "rel_stderr_pct": 11.1, "unit": "s"},
     "counters": [{"event": "page-faults", "supported": True, "unit": "", "values": [5791, None], "counted_runs": 1,
                   "mean": 5791.0, "running_pct": 100.0}]},
    {"v": 3, "type": "background", "command": "/payload/bpftrace/run.sh -f json /payload/bpftrace/kfunc.bt",
     "pid": 84, "ready": "initbench-bpftrace-attached", "ready_s": 10.2, "window_signal": "USR1", "marks": 2,
     "ended": "exited with status 3", "exit": 3, "output_bytes": 766, "output_truncated": False, "output": "..."},
    {"v": 3, "type": "kernel", "kind": "warning", "time_s": 3.2, "phase": "fork", "round": 0,
     "line": "WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:5525 __alloc_pages+0x1/0x2", "context": ["Modules linked in:"]},
    {"v": 3, "type": "error", "what": "config", "key": "initbench.duraton", "value": "2", "source": "profile:default",
     "line": 3, "reason": "unknown key (did you mean duration?)"},
    {"v": 3, "type": "error", "what": "phase fork", "key": "load.x", "reason": "exited with status 2"},
]


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def declared_metrics(record):
    """The "metrics" object the declarations allow the record's kind (initbench schema's
    metrics_TYPE, chosen by kind where the type has kinds), or None."""
    defined = generated_defs().get("metrics_" + record["type"])
    if defined is None:
        return None
    for branch in defined.get("allOf", []):
        (field, kinds), = branch["if"]["properties"].items()
        if record.get(field) in kinds["enum"]:
            return branch["then"]["properties"]["metrics"]
    return defined.get("properties", {}).get("metrics")


def at_version_3(record):
    """The record as version 3 writes it: beside each field its declaration names as a metric,
    that metric, with the unit, better and agg declared. Named metrics only: the entries of a
    "*" are the writer's to name, and any metric may be absent."""
    r = copy.deepcopy(record)
    r["v"] = 3
    declared = declared_metrics(r)
    if declared is None or r.get("supported") is False:
        return r
    metrics = r.setdefault("metrics", {})
    for name, schema in declared.get("properties", {}).items():
        value = r
        for key in name.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if is_number(value):
            given = schema["properties"]  # a unit or better not declared is the writer's own
            metrics[name] = {"value": value, "unit": given["unit"].get("const", "events"),
                             "better": given.get("better", {}).get("const", "lower"), "agg": given["agg"]["const"]}
    return r


@functools.lru_cache(maxsize=None)
def valid_records():
    """The records the sweeps change: the saved logs' (versions 1 and 2), those of version 2 as
    version 3 writes them, and MADE."""
    saved = saved_records()
    return saved + [at_version_3(r) for r in saved if r["v"] == 2] + [at_version_3(r) for r in MADE]


def declared_kinds():
    """Every record type the schema dispatches on, probes and commands by their declared kinds."""
    defs = generated_defs()
    kinds = {t for t in schema_check.schemas()["records.schema.json"]["properties"]["type"]["enum"]
             if t not in ("probe", "command")}
    kinds |= {"probe:" + p for p in defs["probe_name"]["enum"]}
    for branch in defs["metrics_command"]["allOf"]:
        kinds |= {"command:" + k for k in branch["if"]["properties"]["kind"]["enum"]}
    return kinds


# The fields a real record may lack, by record kind: everything else the valid records carry
# (valid_records) is required by the schemas. A field dropped from a `required` list, or a new
# field left optional, fails the test until it is listed here, on purpose. (Some listed fields
# are required in some shapes of a kind: a phase with a load has limits, the idle one none.)
# From version 3 any one metric may be absent (it could not be measured), not its field.
OPTIONAL = {
    "background": ["exit", "metrics", "metrics.*", "window_signal"],  # exit: only if it ended by itself
    "command:exec": ["metrics.*"],
    "command:module": ["metrics.*", "params_read.*"],
    "end": ["console_bytes", "overhead", "overhead.probe_setup", "overhead.probe_setup.*", "overhead.startup",
            "overhead.startup.*"],
    "error": ["key", "line"],  # a key where a value was refused, a line where it was a profile's
    "header": ["config.sources.*", "config.values.*", "initbench_commit"],
    "phase": ["cgroup", "failures", "limits", "load.clients", "load.groups", "load.params.cpu_load_pct",
              "load.params.fds", "load.params.interval_s", "load.params.mode", "load.params.msg_size",
              "load.params.sleepers", "load.params.syscall", "load.params.threads", "memory_peak_mb",
              "metrics.mb_per_s", "metrics.ops_per_s_per_worker", "metrics.sleep.ops_per_s",
              "metrics.sleep.ops_per_s_per_worker", "metrics.syscall.ops_per_s",
              "metrics.syscall.ops_per_s_per_worker", "samples.sleep.ops_per_s", "samples.syscall.ops_per_s",
              "samples.tasks", "startup_s", "stop_s", "tasks", "tasks.peak_sampled", "tasks.reaped",
              "tasks.running_after_stop"],
    "kernel": [],
    "probe:funclat": ["entries", "fallback_reason", "metrics.*", "percentiles.p50", "percentiles.p90",
                      "percentiles.p99"],
    "probe:kthread": ["metrics.*", "ticks_per_span"],
    "probe:perf": ["metrics.*"],
    # Per-CPU fields: a CPU's line may lack the fields of an older /proc/schedstat version.
    # Its metrics only for a layout it knows.
    "probe:schedstat": ["cpus.cpu0", "cpus.cpu0.*", "metrics"],
    # Holes, not choices: record-probe.schema.json has no shape for floor, so it takes any field;
    # and it requires none of softirq's numbers (its writer always gives count, time, unit,
    # wait, vectors and log2 when it has no error). Listed so that the rest is checked.
    "probe:floor": ["*"],
    "probe:softirq": ["avg", "max", "cost", "metrics.*", "percentiles", "percentiles.*", "wait.avg", "wait.max",
                      "count", "time", "unit", "wait", "vectors", "log2", "mechanism", "metrics"],
    "probe:span": ["metrics.*", "percentiles.p50", "percentiles.p90", "percentiles.p99", "samples"],
    "probe:task_storage_churn": ["metrics.*"],
    "probe:wakeups": ["metrics.*", "tasks"],
    "summary": [],
    "warning": [],
}


class RequiredFields(unittest.TestCase):
    """Exhaustive: each field of each valid record (valid_records) is removed in turn; the
    schemas must refuse the record unless OPTIONAL lists the field."""

    def test_removing_any_required_field_is_refused(self):
        accepted, seen = {}, {}
        for record in valid_records():
            kind = record_kind(record)
            for path in field_paths(record):
                cut = copy.deepcopy(record)
                node = cut
                for key in path[:-1]:
                    node = node[key]
                del node[path[-1]]
                name = ".".join(path)
                seen.setdefault(kind, set()).add(name)
                if valid(cut, "records.schema.json"):
                    accepted.setdefault(kind, set()).add(name)
        self.assertEqual(set(seen), set(OPTIONAL), "record kinds of the valid records")
        for kind, names in seen.items():
            with self.subTest(kind=kind):
                allowed = {n for n in names if any(fnmatch.fnmatchcase(n, p) for p in OPTIONAL[kind])}
                self.assertEqual(accepted.get(kind, set()) - allowed, set(),
                                 "accepted without these fields, which OPTIONAL does not list")


def values_within(node, path=()):
    """Every value in a record, nested ones and each list's first item too, with its path."""
    items = node.items() if isinstance(node, dict) else enumerate(node[:1]) if isinstance(node, list) else ()
    for key, value in items:
        yield path + (key,), value
        yield from values_within(value, path + (key,))


def wrong_values(value):
    """What a writer that mixed a field up would put in place of `value`: another JSON type
    (a number as text, a flag as a number, ...), and for a number a negative one."""
    if isinstance(value, bool):
        return ["true", 1]
    if is_number(value):
        return ["1", True, -1]
    if isinstance(value, str):
        return [1]
    if isinstance(value, (list, dict)):
        return [{} if isinstance(value, list) else [], "x"]
    return ["x"]  # null, where nothing could be measured


def replaced(record, path, value):
    out = copy.deepcopy(record)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


# Fields that take more than their value's type in a real record, by record kind, as
# patterns (fnmatch, a list's first item "0"), and why. Any other field that takes another
# type, or a negative number, is a hole in the schemas.
TAKES_MORE = {
    "header": {"config.values.*": "every configuration key's value, left open on purpose: the keys grow with "
                                  "the image (record-header.schema.json)"},
    "probe:schedstat": {"cpus.*": "a CPU's deltas: named where the layout is known, else raw in a list",
                        "domains.*.deltas": "the same for a domain"},
    "probe:floor": {"*": "a hole: record-probe.schema.json has no shape for floor (see OPTIONAL)"},
}


class EveryFieldsTypeAndRange(unittest.TestCase):
    """Generated: each value of each valid record (each shape the saved logs have, each as
    version 3 writes it, and a record of each declared kind none has) is replaced in turn by
    one of another type, and each number by a negative one; and each load parameter a phase
    shows by a value outside what its declaration (payload/X/load.json) allows. The schemas
    must refuse every one."""

    maxDiff = None  # the whole list of what was accepted

    def test_every_declared_kind_has_a_valid_record(self):
        records = valid_records()
        self.assertEqual({record_kind(r) for r in records}, declared_kinds(),
                         "record kinds: a new one needs a record in MADE")
        for r in records:
            with self.subTest(kind=record_kind(r), v=r["v"]):
                schema_check.validate_record(r)

    def test_another_type_or_a_negative_number_is_refused(self):
        accepted = {}
        for record in valid_records():
            kind = record_kind(record)
            self.assertTrue(valid(record, "records.schema.json"), kind)
            for path, value in values_within(record):
                name = ".".join(map(str, path))
                if any(fnmatch.fnmatchcase(name, p) for p in TAKES_MORE.get(kind, {})):
                    continue
                for wrong in wrong_values(value):
                    if valid(replaced(record, path, wrong), "records.schema.json"):
                        accepted.setdefault(f"{kind} v{record['v']}", set()).add(f"{name}: {json.dumps(wrong)}")
        self.assertEqual(accepted, {}, "the schemas accept these values in place of the real ones")

    def test_load_params_outside_their_declaration_are_refused(self):
        shown = {}  # what phase records may show, by the name shown: widened over the loads
        for path in sorted((SOURCE / "payload").glob("*/load.json")):
            for key in json.loads(path.read_text()).get("keys", []):
                if "shown_as" not in key:
                    continue
                s = shown.setdefault(key["shown_as"], {"type": key["type"], "choices": []})
                if key["type"] == "enum":
                    s["choices"] += key["choices"]
                    continue
                # A load leaves a count of 0 out of its record: a count shown is 1 at least.
                low = key["min"] if key["type"] == "seconds" else max(key["min"], 1)
                s["min"], s["max"] = min(s.get("min", low), low), max(s.get("max", key["max"]), key["max"])
        self.assertIn("threads", shown)

        def phase(name, value):
            r = copy.deepcopy(PHASE)
            r["load"]["params"][name] = value
            return r

        for name, s in shown.items():
            with self.subTest(param=name):
                if s["type"] == "enum":
                    takes, refuses = s["choices"], ["no-such-choice", 1]
                else:
                    below = s["min"] - 1 if s["type"] == "uint" else (s["min"] / 2 if s["min"] > 0 else -1)
                    takes, refuses = [s["min"], s["max"]], [below, s["max"] + 1, str(s["min"])]
                    if s["type"] == "uint":
                        refuses.append(s["min"] + 0.5)
                for value in takes:
                    self.assertTrue(valid(phase(name, value), "records.schema.json"), f"{name}={value} refused")
                for value in refuses:
                    self.assertFalse(valid(phase(name, value), "records.schema.json"), f"{name}={value!r} accepted")
        self.assertFalse(valid(phase("undeclared", 1), "records.schema.json"), "a parameter no load shows")


class RefusesWhatTheGuestNeverWrites(unittest.TestCase):
    """Each case changes one thing of a valid document: the schema must say no."""

    def test_the_reference_document_is_valid(self):
        schema_check.validate_results(DOC)
        for r in DOC["records"]:
            schema_check.validate_record(r)

    def refused(self, mutate, name="results.schema.json", why=""):
        doc = copy.deepcopy(DOC)
        target = mutate(doc)
        instance = doc if name == "results.schema.json" else target
        self.assertFalse(valid(instance, name), f"accepted: {why}")
        with self.assertRaises(AssertionError):
            (schema_check.validate_results if name == "results.schema.json" else schema_check.validate_record)(instance)

    def test_missing_required_fields(self):
        for record, field in [(0, "run_id"), (1, "metrics"), (2, "count"), (3, "digest"), (2, "mechanism")]:
            with self.subTest(record=record, field=field):
                self.refused(lambda d: d["records"][record].pop(field), why=f"record {record} without {field}")
        self.refused(lambda d: d["records"][0]["kernel"].pop("release"), why="header.kernel without release")
        self.refused(lambda d: d["log"].pop("status"), why="log without status")
        self.refused(lambda d: d["records"][1]["metrics"]["ops_per_s"].pop("agg"), why="metric without agg")

    def test_unsupported_probe_carries_no_numbers(self):
        def unsupported(d, keep=()):
            r = d["records"][2]
            for k in ("mechanism", "unit", "sum", "min", "max", "avg", "entries", "missed", "percentiles",
                      "log2", "linear", "count"):
                if k not in keep:
                    r.pop(k)
            r["supported"] = False
            r["reason"] = "kernel_clone not found in BTF or kallsyms"
            return r

        doc = copy.deepcopy(DOC)
        schema_check.validate_record(unsupported(doc))  # the right shape is accepted
        self.refused(lambda d: unsupported(d, keep=("count",)), "records.schema.json", "unsupported with a count")
        self.refused(lambda d: unsupported(d, keep=("avg", "max")), "records.schema.json", "unsupported with numbers")
        self.refused(lambda d: unsupported(d).pop("reason"), why="unsupported without a reason")
        self.refused(lambda d: unsupported(d, keep=("mechanism",)), "records.schema.json", "unsupported with a mechanism")
        for probe, numbers in [("wakeups", {"threads": 0, "processes": 0, "mms": 0, "wakeups": 0, "dropped": 0}),
                               ("task_storage_churn", {"comm_prefix": "ib-sleep", "created": 0}),
                               ("schedstat", {"version": 15, "cpus": {}, "domains": {}})]:
            with self.subTest(probe=probe):
                r = {"v": 2, "type": "probe", "probe": probe, "phase": "none", "round": 0, "supported": False,
                     "reason": "no BPF"}
                if probe == "task_storage_churn":
                    r["comm_prefix"] = "ib-sleep"
                schema_check.validate_record(r)
                r.update(numbers)
                self.assertFalse(valid(r, "records.schema.json"), f"unsupported {probe} with numbers")

    def test_version_3_metrics(self):
        """Version 3's probe metrics, as the probes declare them (bpf/X/X_probe.h) (the C++ test
        RecordTypes.AgreeWithTheSchemas checks every declaration against these schemas)."""
        r = copy.deepcopy(FUNCLAT)
        r["v"] = 3
        r["metrics"] = {"count": {"value": 3, "unit": "calls", "better": "none", "agg": "amean"},
                        "avg": {"value": 10.0, "unit": "ns", "better": "lower", "agg": "amean"}}
        schema_check.validate_record(r)
        kthread = {"v": 3, "type": "probe", "probe": "kthread", "phase": "fork", "round": 0, "supported": True,
                   "names": ["rcu*"], "mechanism": "/proc/PID/stat", "clk_tck": 100.0, "ticks": 1, "cpu_s": 0.01,
                   "threads": [{"pid": 3, "comm": "rcu_gp", "utime": 0, "stime": 1, "ticks": 1}],
                   "metrics": {"ticks": {"value": 1, "unit": "ticks", "better": "lower", "agg": "amean"},
                               "threads.rcu_gp.stime": {"value": 1, "unit": "ticks", "better": "lower",
                                                        "agg": "amean"}}}
        schema_check.validate_record(kthread)
        unsupported = {"v": 3, "type": "probe", "probe": "funclat", "phase": "fork", "round": 0,
                       "function": "x", "subtract": "none", "supported": False, "reason": "not in BTF"}
        schema_check.validate_record(unsupported)  # nothing measured, no metrics
        for mutate, what in [
            (lambda x: x["metrics"]["count"].__setitem__("unit", "ns"), "a count in ns"),
            (lambda x: x["metrics"]["avg"].__setitem__("better", "higher"), "a latency better higher"),
            (lambda x: x["metrics"].__setitem__("latency", x["metrics"]["avg"]), "an undeclared metric"),
            (lambda x: x["metrics"]["avg"].pop("agg"), "a metric without agg"),
            (lambda x: x.__setitem__("undeclared_metrics", ["latency"]), "a writer's undeclared metric"),
            (lambda x: x.pop("metrics"), "version 3 without metrics"),
        ]:
            with self.subTest(what=what):
                bad = copy.deepcopy(r)
                mutate(bad)
                self.assertFalse(valid(bad, "records.schema.json"), what)
        for mutate, what in [
            (lambda x: x["metrics"].__setitem__("clk_tck", {"value": 100, "unit": "ticks", "better": "lower",
                                                            "agg": "amean"}), "clk_tck as a metric"),
            (lambda x: x["metrics"].__setitem__("threads.rcu_gp.pid", {"value": 3, "unit": "ticks",
                                                                       "better": "lower", "agg": "amean"}),
             "a pid as a metric"),
        ]:
            with self.subTest(what=what):
                bad = copy.deepcopy(kthread)
                mutate(bad)
                self.assertFalse(valid(bad, "records.schema.json"), what)
        # A "*" with declared fields (schedstat's layout) stands for those fields only.
        events = {"value": 2, "unit": "events", "better": "lower", "agg": "amean"}
        schedstat = {"v": 3, "type": "probe", "probe": "schedstat", "phase": "fork", "round": 0, "supported": True,
                     "version": 15, "cpus": {}, "domains": {},
                     "metrics": {"cpus.cpu0.pcount": events}}
        self.assertTrue(valid({**schedstat, "metrics": {"cpus.cpu0.pcount": events}}, "record-probe.schema.json"))
        self.assertFalse(valid({**schedstat, "metrics": {"cpus.cpu0.version": events}}, "record-probe.schema.json"),
                         "a field outside schedstat's layout as a metric")

    def test_wrong_enum_values(self):
        cases = [
            (lambda d: d["records"][2].__setitem__("mechanism", "uprobe"), "probe mechanism"),
            (lambda d: d["records"][1]["metrics"]["ops_per_s"].__setitem__("agg", "median"), "metric agg"),
            (lambda d: d["records"][1]["metrics"]["ops_per_s"].__setitem__("better", "more"), "metric better"),
            (lambda d: d["log"].__setitem__("status", "partial"), "log status"),
            (lambda d: d.__setitem__("verdict", "fine"), "verdict"),
            (lambda d: d["records"][3].__setitem__("status", "done"), "end status"),
            (lambda d: d["records"][0].__setitem__("arch", "riscv64"), "arch"),
            (lambda d: d["records"][2].__setitem__("subtract", "all"), "funclat subtract"),
            (lambda d: d["records"][1].__setitem__("type", "stage"), "record type"),
            (lambda d: d["records"][1].__setitem__("v", 4), "record version"),
        ]
        for mutate, what in cases:
            with self.subTest(what=what):
                self.refused(mutate, why=what)

    def test_types_ranges_and_closed_shapes(self):
        cases = [
            (lambda d: d["records"][2].__setitem__("count", -1), "negative count"),
            (lambda d: d["records"][2].__setitem__("count", "3"), "count as a string"),
            (lambda d: d["records"][1].__setitem__("ops_per_s", 5), "unknown phase field"),
            (lambda d: d["records"][2].__setitem__("latency", 5), "unknown funclat field"),
            (lambda d: d.__setitem__("exit_code", 1), "verdict ok with exit code 1"),
            (lambda d: d["records"][0].__setitem__("run_id", "xyz"), "run id not hex"),
            (lambda d: d["records"][2].__setitem__("subtract", "offcpu"), "subtract without switch_mechanism"),
            (lambda d: d["records"][1]["cpu"].pop("source"), "v2 cpu without source"),
        ]
        for mutate, what in cases:
            with self.subTest(what=what):
                self.refused(mutate, why=what)

    def test_host_of_run_and_boot(self):
        doc = copy.deepcopy(DOC)
        host = {"qemu_argv": ["qemu-system-x86_64"], "accel": "tcg", "clock": "wall",
                "kernel": {"path": "/k", "sha256": "0" * 64, "bytes": 1}, "image": {"path": "/i", "error": "gone"},
                "arch": "x86_64", "cpus": 1, "memory_mb": 1024, "host_kernel": "6.1",
                "wall": {"total_s": 9.1, "first_output_s": 0.9, "end_record_s": -1, "end_record_to_exit_s": -1}}
        doc["host"] = host
        schema_check.validate_results(doc)
        host["boot"] = {"protocol": "bzimage", "kernel_sha256": "0" * 64, "reason": "no PVH note"}
        schema_check.validate_results(doc)
        host["boot"] = {"protocol": "pvh", "kernel_sha256": "0" * 64, "vmlinux_path": "/v",
                        "vmlinux_build_id": "ab", "pvh_entry": "0x1000850", "vmlinux_extracted": True}
        schema_check.validate_results(doc)
        for mutate, what in [
            (lambda h: h["boot"].__setitem__("protocol", "efi"), "boot protocol"),
            (lambda h: h["boot"].pop("vmlinux_path"), "pvh without its vmlinux"),
            (lambda h: h.__setitem__("accel", "hvf"), "accel"),
            (lambda h: h.__setitem__("clock", "rtc"), "clock"),
            (lambda h: h["wall"].__setitem__("first_output_s", -2), "wall time below -1"),
        ]:
            with self.subTest(what=what):
                bad = copy.deepcopy(doc)
                mutate(bad["host"])
                self.assertFalse(valid(bad, "results.schema.json"), what)

    def test_environment(self):
        doc = copy.deepcopy(DOC)
        build = {"version": "0.1.0", "commit": "bcdac30-dirty"}
        doc["environment"] = {"initbench": build, "image": {"version": "0.1.0"}}  # parse's
        schema_check.validate_results(doc)
        env = doc["environment"]
        env["qemu"] = {"binary": "qemu-system-x86_64", "version": "7.2.17",
                       "banner": "QEMU emulator version 7.2.17 (Debian 1:7.2+dfsg-7+deb12u13)"}
        env["host"] = {"cpu_model": "Intel(R) Xeon(R) CPU @ 2.20GHz", "kernel_release": "6.1.0-28-cloud-amd64",
                       "kernel_version": "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1", "machine": "x86_64"}
        env["kernel_config"] = {"path": ".config", "sha256": "0" * 64, "bytes": 250000}
        schema_check.validate_results(doc)  # run's
        env["qemu"] = {"binary": "qemu-system-x86_64", "error": "not found"}
        schema_check.validate_results(doc)
        doc["records"][0]["initbench_commit"] = "bcdac30"
        schema_check.validate_record(doc["records"][0])
        for mutate, what in [
            (lambda e: e.pop("initbench"), "without the CLI's build"),
            (lambda e: e.__setitem__("qemu", {"binary": "q", "version": "7.2", "banner": "b", "error": "x"}),
             "QEMU with a version and an error"),
            (lambda e: e["qemu"].pop("binary"), "QEMU without its binary"),
            (lambda e: e.pop("host"), "QEMU without the host"),
            (lambda e: e["host"].pop("cpu_model"), "host without the CPU model"),
            (lambda e: e["kernel_config"].pop("sha256"), "a config without its hash"),
            (lambda e: e.__setitem__("qemu_version", "7.2"), "an unknown field"),
        ]:
            with self.subTest(what=what):
                bad = copy.deepcopy(doc)
                bad["environment"]["qemu"] = {"binary": "qemu-system-x86_64", "version": "7.2.17", "banner": "b"}
                mutate(bad["environment"])
                self.assertFalse(valid(bad, "results.schema.json"), what)


if __name__ == "__main__":
    unittest.main()
