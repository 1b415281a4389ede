"""A lab's view: the job `initbench lava-job` writes runs under LAVA's own dispatcher
(lava-run, no server), and LAVA's results carry initbench's metrics with the right values.
The QEMU device type comes from the lava-server package's templates, rendered here."""
import math
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import yaml  # python3-yaml, a dependency of lava-dispatcher

import bootlib
import limits

CACHE = Path(os.environ.get("INITBENCH_CACHE", Path.home() / ".cache/initbench"))


def device_types() -> Path:
    """lava-server's device-type templates, unpacked from its .deb (never installed)."""
    root = CACHE / "lava-server"
    types = root / "usr/share/lava-server/device-types"
    if not (types / "qemu.jinja2").exists():
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", "lava-server"], cwd=tmp, check=True, capture_output=True)
            deb = next(Path(tmp).glob("lava-server_*.deb"))
            subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    return types


def render_qemu_device(path: Path):
    import jinja2  # Debian's python3-jinja2, as lava-server uses it
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(device_types())]))
    # KVM does not run guests on these machines (README, "--accel auto"): no_kvm, TCG with -cpu max.
    template = env.from_string(
        "{% extends 'qemu.jinja2' %}{% set arch = 'amd64' %}{% set no_kvm = True %}"
        "{% set memory = 1024 %}{% set extra_options = ['-accel tcg', '-cpu max', '-no-reboot'] %}")
    path.write_text(template.render())


def lava_results(log: str):
    """LAVA's results of the initbench test, by case id, from lava-run's log."""
    out = {}
    for line in log.splitlines():
        if '"lvl": "results"' not in line:
            continue
        msg = yaml.safe_load(line)["msg"]  # LAVA's flow YAML, not always JSON
        if msg.get("definition") == "initbench":
            out[msg["case"]] = msg
    return out


class LavaMonitorPattern(unittest.TestCase):
    """The job's monitor pattern, as LAVA's pexpect tries it on a console read in pieces:
    only a whole line matches, so no value is recorded cut short."""
    ctest_boots = 0

    def test_only_a_whole_line_matches(self):
        job = subprocess.run([bootlib.INITBENCH, "lava-job", "--kernel", "http://lab/bzImage",
                              "--image", "http://lab/initbench.cpio.gz"],
                             check=True, capture_output=True, text=True, timeout=limits.HOST_S).stdout
        test = next(a["test"] for a in yaml.safe_load(job)["actions"] if "test" in a)
        pattern = re.compile(test["monitors"][0]["pattern"])
        text = "initbench-case: fork-r0-ops-per-s result=pass measurement=1234.5678 units=fork_exit_wait_s"
        for cut in range(len(text) + 1):
            self.assertIsNone(pattern.search("[  1.0] boot\r\n" + text[:cut]), text[:cut])
        for end in ("\r\r\n", "\r\n", "\n"):  # through LAVA's pty, QEMU's stdio, a log file
            whole = pattern.search(text + end)
            self.assertEqual((whole["test_case_id"], whole["result"], whole["measurement"], whole["units"]),
                             ("fork-r0-ops-per-s", "pass", "1234.5678", "fork_exit_wait_s"))
        self.assertEqual(pattern.search("initbench-case: run-complete result=fail\r\r\n")["result"], "fail")


@unittest.skipUnless(shutil.which("lava-run"), "lava-dispatcher is not installed")
class Lava(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = bootlib.class_tmpdir(cls, "initbench-lava-")
        tmp = Path(cls.tmp.name)
        render_qemu_device(tmp / "device.yaml")
        limit = bootlib.boot_limit()
        job = subprocess.run([bootlib.INITBENCH, "lava-job", "--timeout", str(math.ceil(limit / 60)),
                              "--kernel", "file://" + bootlib.kernel(),
                              "--image", "file://" + str(Path(bootlib.IMAGE).resolve()), "--",
                              "initbench.duration=1", "initbench.funclat=kernel_clone,no_such_function"],
                             check=True, capture_output=True, text=True).stdout
        (tmp / "job.yaml").write_text(job)
        p = subprocess.run(["lava-run", "--device", str(tmp / "device.yaml"), "--job-id", "1",
                            "--output-dir", str(tmp / "out"), str(tmp / "job.yaml")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=limits.boot_wait(limit))
        cls.log = p.stdout  # lava-run logs on stderr
        (tmp / "lava.log").write_text(cls.log)
        cls.results = lava_results(cls.log)
        # The same log read by initbench: LAVA's own format, quoting undone.
        cls.code, cls.doc = bootlib.parse(tmp / "lava.log")

    def test_job_passed(self):
        self.assertIn('"case": "job", "definition": "lava", "result": "pass"', self.log, self.log[-3000:])
        self.assertEqual(self.results["run_complete"]["result"], "pass")

    def test_parse_reads_lavas_log(self):
        self.assertEqual(self.doc["log"]["status"], "complete")
        self.assertEqual(self.code, 0)

    def test_metrics_carry_the_recorded_values(self):
        fork = [r for r in self.doc["records"] if r["type"] == "phase" and r["phase"] == "fork"][0]
        lava = self.results["fork_r0_ops_per_s"]
        self.assertEqual(lava["result"], "pass")
        self.assertAlmostEqual(float(lava["measurement"]), fork["metrics"]["ops_per_s"]["value"], places=3)
        self.assertEqual(lava["units"], re.sub(r"[^a-z0-9._-]", "_", fork["metrics"]["ops_per_s"]["unit"]))
        probe = [r for r in self.doc["records"] if r["type"] == "probe" and r.get("function") == "kernel_clone"
                 and r["phase"] == "fork"][0]
        self.assertEqual(float(self.results["probe_funclat_kernel_clone_fork_r0_count"]["measurement"]),
                         probe["count"])

    def test_unsupported_probe_is_a_skip(self):
        self.assertEqual(self.results["probe_funclat_no_such_function_fork_r0"]["result"], "skip")


if __name__ == "__main__":
    unittest.main()
