"""`initbench export`, whole documents: a results file of Debian's 6.1 (with a probe the
kernel cannot run), an `ab` directory, and a failed run export to a KCIDB document that keeps
KCIDB v5.3's rules (data/export/kcidb_v5_3_rules.json, our statement of them) and to a JUnit
file that validates against data/export/junit.xsd (xmllint). The rules themselves are checked
to refuse what they must, and bad input to be refused before anything is written.

INITBENCH: the built CLI (set by ctest); INITBENCH_SOURCE: the source tree."""
import copy
import datetime
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

from jsonschema import Draft7Validator

SOURCE = Path(os.environ.get("INITBENCH_SOURCE", Path(__file__).resolve().parents[2]))
INITBENCH = os.environ.get("INITBENCH", str(SOURCE / "build/host/initbench"))
DATA = SOURCE / "tests/unit/data/export"
DEBIAN_61 = SOURCE / "tests/fuzz/corpus/results/default.json"  # 6.1.0-57-amd64, funclat no_such_fn
RULES = Draft7Validator(json.loads((DATA / "kcidb_v5_3_rules.json").read_text()),
                        format_checker=Draft7Validator.FORMAT_CHECKER)


def export(*args, check=True):
    p = subprocess.run([INITBENCH, "export", *map(str, args)], capture_output=True, text=True, timeout=60)
    if check and p.returncode != 0:
        raise AssertionError(f"export {args} exited {p.returncode}: {p.stderr}")
    return p


def kcidb(*args):
    return json.loads(export("--format", "kcidb", "--origin", "test_lab", *args).stdout)


def rule_errors(doc):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in RULES.iter_errors(doc)]


def xsd_errors(xml_text):
    with tempfile.NamedTemporaryFile("w", suffix=".xml") as f:
        f.write(xml_text)
        f.flush()
        p = subprocess.run(["xmllint", "--noout", "--schema", str(DATA / "junit.xsd"), f.name],
                           capture_output=True, text=True, timeout=60)
        return "" if p.returncode == 0 else p.stderr


def with_run(doc, run_id, scale=1.0):
    """The document as another boot: its own run id, its phases' rates scaled."""
    doc = copy.deepcopy(doc)
    for r in doc["records"]:
        if r["type"] == "header":
            r["run_id"] = run_id
        for m in r.get("metrics", {}).values() if r["type"] == "phase" else ():
            if isinstance(m, dict) and isinstance(m.get("value"), (int, float)):
                m["value"] *= scale
    return doc


def statuses(doc):
    return sorted({t["status"] for t in doc["tests"]})


class Rules(unittest.TestCase):
    """The rules refuse what KCIDB refuses: they are not trivially open."""

    def setUp(self):
        self.doc = kcidb(DEBIAN_61)

    def test_the_export_keeps_them(self):
        self.assertEqual(rule_errors(self.doc), [])

    def test_they_refuse_each_broken_field(self):
        breaks = {
            "no version": lambda d: d.pop("version"),
            "version 4": lambda d: d["version"].update(major=4),
            "a test without its id": lambda d: d["tests"][0].pop("id"),
            "a test without its build": lambda d: d["tests"][0].pop("build_id"),
            "an id without an origin": lambda d: d["tests"][0].update(id="no-origin"),
            "an upper-case origin": lambda d: d["tests"][0].update(origin="Test_Lab"),
            "an unknown status": lambda d: d["tests"][0].update(status="UNKNOWN"),
            "a path with a slash": lambda d: d["tests"][0].update(path="initbench.fork/ops_per_s"),
            "a number without its value": lambda d: d["tests"][0]["number"].pop("value"),
            "a number with another field": lambda d: d["tests"][0]["number"].update(interval=[1, 2]),
            "a date that is not one": lambda d: d["tests"][0].update(start_time="yesterday"),
            "a build without its checkout": lambda d: d["builds"][0].pop("checkout_id"),
            "a field KCIDB does not have": lambda d: d["tests"][0].update(verdict="SAME"),
        }
        for name, brk in breaks.items():
            doc = copy.deepcopy(self.doc)
            brk(doc)
            self.assertNotEqual(rule_errors(doc), [], name)


class Debian61(unittest.TestCase):
    def test_kcidb(self):
        doc = kcidb(DEBIAN_61)
        self.assertEqual(rule_errors(doc), [])
        self.assertEqual(doc["version"], {"major": 5, "minor": 3})
        self.assertEqual(statuses(doc), ["DONE", "SKIP"])
        skip = [t for t in doc["tests"] if t["status"] == "SKIP"]
        self.assertIn("not found in BTF", skip[0]["log_excerpt"])
        done = [t for t in doc["tests"] if t["path"] == "initbench.fork.ops_per_s"]
        self.assertEqual(len(done), 1)
        self.assertEqual(done[0]["environment"]["misc"]["platform"], "qemu-system-x86_64 machine default, accel tcg")
        datetime.datetime.fromisoformat(done[0]["start_time"])
        self.assertEqual(doc["builds"][0]["misc"]["kernel_release"], "6.1.0-57-amd64")

    def test_ids_are_the_same_on_every_export(self):
        ids = [[t["id"] for t in kcidb(DEBIAN_61)[k]] for k in ("tests", "builds")]
        again = [[t["id"] for t in kcidb(DEBIAN_61)[k]] for k in ("tests", "builds")]
        self.assertEqual(ids, again)
        self.assertEqual(len(set(ids[0])), len(ids[0]))

    def test_log_url(self):
        doc = kcidb(DEBIAN_61, "--log-url", "https://lab.example/logs")
        self.assertEqual(doc["tests"][0]["log_url"], "https://lab.example/logs/default.log")

    def test_junit(self):
        xml = export("--format", "junit", DEBIAN_61).stdout
        self.assertEqual(xsd_errors(xml), "")
        self.assertIn("<skipped message=\"function not found in BTF", xml)


class AbDirectory(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="initbench-export-")
        ab = Path(cls.tmp.name) / "ab"
        (ab / "runs").mkdir(parents=True)
        base = json.loads(DEBIAN_61.read_text())
        for label, scale in (("A", 1.0), ("B", 0.7)):
            for i in range(1, 6):
                jitter = 1 + (i - 3) * 0.002
                doc = with_run(base, f"{label}{i:031d}", scale * jitter)
                (ab / "runs" / f"{label}-{i:03d}.json").write_text(json.dumps(doc))
        (ab / "ab.json").write_text(json.dumps({"initbench_ab": 1, "sides": [{"label": "A"}, {"label": "B"}],
                                                "method": "auto", "confidence": 0.95, "min_effect_pct": 5}))
        cls.ab = ab

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_kcidb(self):
        doc = kcidb(self.ab)
        self.assertEqual(rule_errors(doc), [])
        verdicts = {t["path"]: t for t in doc["tests"] if t["path"].startswith("initbench.compare.")}
        ops = verdicts["initbench.compare.fork.ops_per_s"]
        self.assertEqual((ops["status"], ops["misc"]["verdict"]), ("FAIL", "DIFFERENT"))
        self.assertIn("DIFFERENT vs 6.1.0-57-amd64 baseline", ops["comment"])
        for t in verdicts.values():
            if t["misc"]["verdict"] == "UNKNOWN":
                self.assertEqual(t["status"], "DONE", t["path"])

    def test_junit(self):
        xml = export("--format", "junit", self.ab).stdout
        self.assertEqual(xsd_errors(xml), "")
        self.assertIn('<testsuite name="B vs A"', xml)
        self.assertIn("<failure ", xml)
        # Each boot's case is its own: a side's five boots give five names per metric.
        self.assertEqual(xml.count('<testcase name="fork/ops_per_s round 0, run A'), 5)

    def test_baseline_named_by_label(self):
        doc = kcidb("--baseline", "B", self.ab)
        ops = [t for t in doc["tests"] if t["path"] == "initbench.compare.fork.ops_per_s"]
        self.assertEqual(len(ops), 1)
        self.assertEqual((ops[0]["misc"]["baseline"], ops[0]["status"]), ("B", "PASS"))


class FailedRun(unittest.TestCase):
    def test_error_and_no_number(self):
        doc = json.loads(DEBIAN_61.read_text())
        doc["log"]["status"] = "incomplete"
        with tempfile.TemporaryDirectory(prefix="initbench-export-") as tmp:
            path = Path(tmp) / "cut.json"
            path.write_text(json.dumps(doc))
            out = kcidb(path)
            self.assertEqual(rule_errors(out), [])
            self.assertEqual(statuses(out), ["ERROR"])
            self.assertNotIn("number", out["tests"][0])
            self.assertIn("incomplete", out["tests"][0]["log_excerpt"])
            xml = export("--format", "junit", path).stdout
            self.assertEqual(xsd_errors(xml), "")
            self.assertIn("<error ", xml)


class Refusals(unittest.TestCase):
    """Each is refused with its reason, and no output file is written."""

    def refused(self, code, why, *args):
        with tempfile.TemporaryDirectory(prefix="initbench-export-") as tmp:
            out = Path(tmp) / "out.json"
            p = export(*args, "--out", out, check=False)
            self.assertEqual(p.returncode, code, p.stderr)
            self.assertIn(why, p.stderr)
            self.assertFalse(out.exists())

    def test_bad_origin(self):
        self.refused(2, "lower-case letters", "--format", "kcidb", "--origin", "My Lab", DEBIAN_61)

    def test_no_origin(self):
        self.refused(2, "--origin", "--format", "kcidb", DEBIAN_61)

    def test_not_results(self):
        self.refused(3, "not an initbench results document", "--format", "junit", SOURCE / "docs/schema/results.schema.json")

    def test_baseline_names_no_side(self):
        self.refused(3, "names no side", "--format", "junit", "--baseline", "nosuch.json", DEBIAN_61)

    def test_bad_commit(self):
        self.refused(2, "40 hex digits", "--format", "kcidb", "--origin", "lab", "--git-commit-hash", "abc", DEBIAN_61)


if __name__ == "__main__":
    unittest.main()
