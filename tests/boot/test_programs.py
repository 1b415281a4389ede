"""Boot test of `initbench pack --program`: Debian's own dynamically linked programs (glibc)
packed with their libraries and loader run in the static, musl-only image.

One boot of Debian's 6.1 kernel under QEMU TCG. The command is a packed script (--data) that
runs stress-ng (25 shared libraries) and env (which shares libc and the loader with it)
through their wrappers in /payload/bin, and reads a data file packed beside them."""
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import bootlib

CHECK = """#!/bin/sh
set -e
/payload/bin/stress-ng --version
/payload/bin/stress-ng --cpu 1 --cpu-ops 20 --quiet
echo "stress-ng run: exit $?"
/payload/bin/env PACKED_BY=initbench /payload/bin/env | grep PACKED_BY
cat /payload/share/words.txt
"""


class PackedPrograms(unittest.TestCase):
    """stress-ng and env, packed with --program, run in the guest with exit 0."""

    @classmethod
    def setUpClass(cls):
        cls.stress_ng = shutil.which("stress-ng")
        if not cls.stress_ng:
            raise unittest.SkipTest("no stress-ng on this host: scripts/install-deps.sh installs it")
        cls.tmp = tempfile.TemporaryDirectory(prefix="initbench-programs-")
        tmp = Path(cls.tmp.name)
        (tmp / "check").write_text(CHECK)
        (tmp / "check").chmod(0o755)
        (tmp / "words.txt").write_text("packed data file\n")
        (tmp / "experiment.conf").write_text("cmd = /payload/check\n")
        packed = tmp / "packed.cpio.gz"
        cls.pack = subprocess.run(
            [bootlib.INITBENCH, "pack", "--image", bootlib.IMAGE, "--program", cls.stress_ng,
             "--program", "/usr/bin/env", "--data", f"{tmp / 'check'}:/payload/check",
             "--data", f"{tmp / 'words.txt'}:/payload/share/words.txt",
             "--config", str(tmp / "experiment.conf"), "-o", str(packed)],
            capture_output=True, text=True)
        assert cls.pack.returncode == 0, cls.pack.stderr
        saved = bootlib.IMAGE
        bootlib.IMAGE = str(packed)
        try:
            cls.r = bootlib.run()
        finally:
            bootlib.IMAGE = saved

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_pack_prints_the_sizes(self):
        self.assertRegex(self.pack.stdout, r"/payload/bin/stress-ng: [0-9.]+ MiB program \+ [0-9.]+ MiB in \d+ libraries")
        self.assertRegex(self.pack.stdout, r"/payload/bin/env: [0-9.]+ KiB program")
        self.assertRegex(self.pack.stdout, r"programs: [0-9.]+ MiB added, each library once")

    def test_programs_ran(self):
        self.assertEqual(self.r.code, 0, self.r.stdout + self.r.stderr + self.r.log[-3000:])
        cmd = self.r.one("command")
        self.assertEqual(cmd["argv"], ["/payload/check"])
        self.assertEqual([run["exit"] for run in cmd["runs"]], [0], cmd.get("output"))
        version = subprocess.run([self.stress_ng, "--version"], capture_output=True, text=True).stdout
        self.assertIn(version.split("(")[0].strip(), cmd["output"])  # "stress-ng, version X"
        self.assertIn("stress-ng run: exit 0", cmd["output"])
        self.assertIn("PACKED_BY=initbench", cmd["output"])
        self.assertIn("packed data file", cmd["output"])


if __name__ == "__main__":
    unittest.main()
