"""The report in Debian's headless chromium: the page loads with no console message (an
error, a blocked or failed load), and a screenshot is left under the build dir."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from reportlib import parse_log, report, temp_dir, with_counters, with_host, write

CHROMIUM = shutil.which("chromium")
# How chromium's --enable-logging=stderr reports a page's console: INFO:CONSOLE(12)] "..."
# (older) or INFO:CONSOLE:12] "..." (newer).
CONSOLE = re.compile(r":CONSOLE[(:]\d*\)?\]")


def chromium(url, *args):
    with tempfile.TemporaryDirectory(prefix="initbench-chromium-") as profile:
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                            "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                            "--enable-logging=stderr", "--v=0", *args, url],
                           capture_output=True, text=True, timeout=120)
    return r


@unittest.skipUnless(CHROMIUM, "chromium is not installed (scripts/install-deps.sh installs it for the tests)")
class ReportInBrowser(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir()
        d = self.tmp.name
        base_path, base = parse_log("x86_64-probes.log", d)
        base = with_host(base, "11" * 32)
        self.sides = [write(base, base_path),
                      write(with_counters(with_host(base, "22" * 32), "0123456789abcdef0123456789abcdef", 0.8),
                            os.path.join(d, "patch.json"))]

    def tearDown(self):
        self.tmp.cleanup()

    def test_console_messages_are_seen(self):
        """The check below would see an error: a page that logs one and loads a missing file."""
        page = os.path.join(self.tmp.name, "noisy.html")
        with open(page, "w") as f:
            f.write('<!DOCTYPE html><script>console.error("initbench-noisy")</script><img src="missing.png">')
        r = chromium("file://" + page, "--dump-dom")
        self.assertRegex(r.stderr, CONSOLE.pattern + r'.*initbench-noisy')

    def test_page_loads_cleanly(self):
        out_dir = os.environ.get("INITBENCH_REPORT_OUT", self.tmp.name)
        os.makedirs(out_dir, exist_ok=True)
        html_path = os.path.join(out_dir, "report.html")
        r, html = report(self.sides, html_path)
        self.assertEqual(r.returncode, 0, r.stderr)
        dom = chromium("file://" + html_path, "--dump-dom")
        self.assertEqual(dom.returncode, 0, dom.stderr[-2000:])
        self.assertFalse([l for l in dom.stderr.splitlines() if CONSOLE.search(l)], dom.stderr[-2000:])
        self.assertIn("Phases at a glance", dom.stdout)
        self.assertGreater(dom.stdout.count("<svg"), 3)
        png = os.path.join(out_dir, "report.png")
        if os.path.exists(png):
            os.unlink(png)
        shot = chromium("file://" + html_path, f"--screenshot={png}", "--window-size=1200,2000", "--hide-scrollbars")
        self.assertFalse([l for l in shot.stderr.splitlines() if CONSOLE.search(l)])
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        print(f"screenshot: {png}")


if __name__ == "__main__":
    unittest.main()
