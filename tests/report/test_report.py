"""`initbench report` from saved results: one plot per phase metric and per histogram, the
identity table, nothing fetched from a network, refused files shown without numbers."""
import json
from html import unescape
import os
import re
import subprocess
import unittest

from reportlib import INITBENCH, Page, parse_log, report, temp_dir, with_counters, with_host, write


def expected_plots(docs, sides):
    """What the page must plot, found independently: the (phase, samples key) pairs of the
    phase records, and compare's histograms."""
    series = set()
    for doc in docs:
        for r in doc["records"]:
            if r.get("type") == "phase":
                for key, values in r.get("samples", {}).items():
                    if isinstance(values, list) and values:
                        series.add(f'{r["phase"]}/{key}')
    out = subprocess.run([INITBENCH, "compare", *sides, "--format", "json"], capture_output=True, text=True)
    hists = {h["id"] for h in json.loads(out.stdout)["histograms"]} if out.returncode == 0 else set()
    return series, hists


class ReportPage(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir()
        d = self.tmp.name
        self.base_path, self.base = parse_log("x86_64-probes.log", d)
        self.base = with_host(self.base, "11" * 32)
        write(self.base, self.base_path)
        self.new = with_counters(with_host(self.base, "22" * 32), "0123456789abcdef0123456789abcdef", 0.8)
        self.new_path = write(self.new, os.path.join(d, "patch.json"))
        self.bad_path, self.bad = parse_log("truncated.log", d)

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.tmp.name, name)

    def test_comparison(self):
        r, html = report([self.base_path, self.new_path], self.out("ab.html"))
        self.assertEqual(r.returncode, 0, r.stderr)
        page = Page(html)
        series, hists = expected_plots([self.base, self.new], [self.base_path, self.new_path])
        self.assertTrue(series and hists)
        timeseries = {f[1] for f in page.figures if f[0] == "timeseries"}
        histograms = [f[1] for f in page.figures if f[0] == "histogram"]
        self.assertEqual(timeseries, series)
        self.assertEqual(len([f for f in page.figures if f[0] == "timeseries"]), len(series))
        self.assertEqual(sorted(histograms), sorted(hists))
        self.assertTrue(all(f[2] for f in page.figures), "every figure holds gnuplot's SVG")
        # Every metric compare finds is a row of the page, in its group's table (the phases',
        # then the probes'): none dropped, none added.
        out = subprocess.run([INITBENCH, "compare", self.base_path, self.new_path, "--format", "json"],
                             capture_output=True, text=True)
        metrics = json.loads(out.stdout)["metrics"]
        by_group = [sorted(m["id"] for m in metrics if "/" not in m["group"]),
                    sorted(m["id"] for m in metrics if "/" in m["group"])]
        self.assertTrue(all(by_group), by_group)
        self.assertEqual([sorted(t) for t in page.metric_tables], by_group)
        # Identity first: the facts of each run.
        for head in ("status", "run id", "kernel release", "build id", "kernel SHA-256",
                     "image SHA-256", "command line", "QEMU"):
            self.assertIn(head, page.row_heads)
        text = " ".join(page.text)
        self.assertIn("0123456789abcdef0123456789abcdef", text)
        self.assertIn(self.base["records"][0]["kernel"]["build_id"], text)
        # Self-contained: no network, no script files.
        self.assertFalse([u for u in page.urls if re.match(r"\s*(https?:)?//", u)], page.urls)
        self.assertFalse([s for s in page.scripts if "src" in s])
        self.assertNotRegex(html, r"(src|href)\s*=\s*['\"]?\s*(https?:)?//")
        # compare's verdicts, the kernel WARN at the top, the counters with the reason.
        self.assertIn("change", text)
        self.assertIn("KS D", text)
        self.assertIn("kernel WARN", text)
        self.assertLess(html.index("kernel WARN"), html.index('id="summary"'))
        self.assertIn("counters", page.tables)
        self.assertIn("task-clock", text)
        self.assertIn("CPUs utilized", text)
        self.assertIn("not supported: No such file or directory (errno 2)", text)

    def test_each_side_shows_its_own_mean(self):
        # Three sides whose rates are 1, 2 and 0.5 times the base's, the last two with perf's
        # counters at 2 and 0.5 times one count: each side's cell holds its own side's number,
        # not the base's, nor another side's.
        scales = [1, 2, 0.5]
        paths = [self.base_path] + [
            write(with_counters(self.base, f"{i:032x}", scale), self.out(f"side{i}.json"))
            for i, scale in enumerate(scales) if i]
        r, html = report(paths, self.out("three.html"))
        self.assertEqual(r.returncode, 0, r.stderr)
        shown = Page(html).side_means
        number = lambda text: None if text is None else float(text)
        # The rate, from the base's own record: one round a side, so each side's mean is it.
        rate = next(rec["metrics"]["ops_per_s"]["value"] for rec in self.base["records"]
                    if rec.get("type") == "phase" and "metrics" in rec)
        for want, got in zip([rate * s for s in scales], map(number, shown["fork/ops_per_s"]), strict=True):
            self.assertAlmostEqual(got / want, 1, places=3, msg=shown["fork/ops_per_s"])
        self.assertEqual(list(map(number, shown["fork/perf/counters.task-clock.value"])), [None, 1.4e9, 3.5e8])
        # Every row: each side's cell is that side's mean as compare gives it.
        out = subprocess.run([INITBENCH, "compare", *paths, "--format", "json"], capture_output=True, text=True)
        for m in json.loads(out.stdout)["metrics"]:
            with self.subTest(metric=m["id"]):
                means = [s.get("mean") for s in m["sides"]]
                self.assertEqual(len(shown[m["id"]]), len(means))
                for want, got in zip(means, map(number, shown[m["id"]])):
                    if want is None or got is None:
                        self.assertEqual(got, want)
                    else:
                        self.assertAlmostEqual(got, want, delta=abs(want) * 1e-3)

    def test_the_headline_is_compares_verdicts(self):
        # The page opens with the verdicts, the same lines compare's outputs open with.
        base = ",".join(write(with_counters(self.base, f"{i:032x}", 1 + i / 100), self.out(f"b{i}.json"))
                        for i in (1, 2, 3))
        half = ",".join(write(with_counters(self.base, f"{i:032x}", 0.5 + i / 100), self.out(f"h{i}.json"))
                        for i in (4, 5, 6))
        r, html = report([base, half], self.out("headline.html"))
        self.assertEqual(r.returncode, 0, r.stderr)
        box = re.search(r'<div class="box headline" id="verdicts">(.*?)</div>', html, re.S)
        self.assertIsNotNone(box, "a headline")
        self.assertLess(html.index('id="verdicts"'), html.index("<table"), "before any table")
        shown = [unescape(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", box.group(1))]
        out = subprocess.run([INITBENCH, "compare", base, half, "--format", "json"], capture_output=True, text=True)
        lines = json.loads(out.stdout)["verdict_lines"]
        self.assertTrue(lines)
        self.assertEqual(shown, lines)
        text = subprocess.run([INITBENCH, "compare", base, half, "--format", "text"], capture_output=True, text=True)
        self.assertTrue(text.stdout.startswith("verdicts:\n  " + lines[0] + "\n"), text.stdout[:300])

    def test_experiment_row_is_the_experiment_that_ran(self):
        # Its description; without one, what it set (never the words of a profile it included).
        cell = lambda html: re.search(r"<tr><th>experiment</th><td[^>]*>(.*?)</td>", html).group(1)
        config = self.base["records"][0]["config"]
        self.assertTrue(config["description"])
        _, html = report([self.base_path], self.out("described.html"))
        self.assertEqual(cell(html), config["description"])
        doc = json.loads(json.dumps(self.base))
        doc["records"][0]["config"]["description"] = ""
        _, html = report([write(doc, self.out("plain.json"))], self.out("plain.html"))
        shown = cell(html)
        set_keys = [k for k, src in config["sources"].items() if src != "default"]
        self.assertTrue(set_keys)
        for key in set_keys:
            self.assertRegex(shown, rf"(^| ){re.escape(key)}=\S", shown)
        for key in (k for k, src in config["sources"].items() if src == "default"):
            self.assertNotRegex(shown, rf"(^| ){re.escape(key)}=")

    def test_icount_clock_says_what_time_is(self):
        doc = json.loads(json.dumps(self.base))
        doc["host"]["clock"] = "icount"
        doc["host"]["qemu_argv"] += ["-icount", "shift=4,align=off,sleep=off"]
        _, html = report([write(doc, self.out("icount.json"))], self.out("icount.html"))
        self.assertIn("clock icount (-icount shift=4,align=off,sleep=off: guest time counts instructions, "
                      "16 ns each)", html)

    def test_single_run(self):
        r, html = report([self.base_path], self.out("one.html"))
        self.assertEqual(r.returncode, 0, r.stderr)
        page = Page(html)
        self.assertIn("Phases at a glance", html)
        self.assertNotIn("<th>change</th>", html)
        self.assertTrue([f for f in page.figures if f[0] == "timeseries"])
        self.assertIn("identity", page.tables)

    def test_refused_file_gives_no_numbers(self):
        alone_r, alone = report([self.base_path], self.out("alone.html"))
        r, html = report([f"{self.base_path},{self.bad_path}"], self.out("bad.html"))
        self.assertEqual(r.returncode, 3, "a refused file makes exit code 3, as compare")
        self.assertIn("refused", r.stderr)
        reason = self.bad["log"]["status"]
        self.assertIn("REFUSED", html)
        self.assertIn(reason, html)
        # The numbers are those of the usable file alone.
        table = lambda h: h[h.index("<tbody>", h.index('id="summary"')):h.index('id="identity"')]
        self.assertEqual(table(html), table(alone))
        # A side of refused files only: shown, and no numbers at all.
        r, html = report([self.bad_path], self.out("only-bad.html"))
        self.assertEqual(r.returncode, 3)
        self.assertIn("No numbers", html)
        self.assertEqual(Page(html).figures, [])

    def test_unwritable_page_says_why(self):
        out = self.out("no-such-dir/page.html")
        r = subprocess.run([INITBENCH, "report", self.base_path, "-o", out], capture_output=True, text=True)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn(f"initbench report: cannot write {out}.tmp: No such file or directory", r.stderr)

    def test_refused_comparison(self):
        other, _ = parse_log("aarch64-default.log", self.tmp.name)
        r, html = report([self.base_path, other], self.out("refused.html"))
        self.assertEqual(r.returncode, 3)
        self.assertIn("compare refused the comparison", html)
        self.assertNotIn("<th>change</th>", html)

    def test_without_gnuplot(self):
        r, html = report([self.base_path], self.out("noplot.html"), env={"INITBENCH_GNUPLOT": "/nonexistent/gnuplot"})
        self.assertEqual(r.returncode, 0)
        self.assertIn("no plots", r.stderr)
        self.assertNotIn("<svg", html)
        self.assertIn("Phases at a glance", html)

    def test_directory_side(self):
        r = subprocess.run([INITBENCH, "report", self.tmp.name, "-o", self.out("dir.html")], capture_output=True,
                           text=True)
        # The directory holds the documents of several logs (kernels, parameter sets): never pooled.
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("give each its own side (an ab directory is split by side)", r.stderr)
        empty = self.out("empty")
        os.mkdir(empty)
        r = subprocess.run([INITBENCH, "report", empty, "-o", self.out("e.html")], capture_output=True)
        self.assertEqual(r.returncode, 2, "a directory without results files names no side")


if __name__ == "__main__":
    unittest.main()
