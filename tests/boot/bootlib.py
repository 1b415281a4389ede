"""Shared by the boot tests: find the kernel and image, run `initbench` as a user would."""
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(os.environ.get("INITBENCH_SOURCE", Path(__file__).resolve().parents[2]))
INITBENCH = os.environ.get("INITBENCH", str(SOURCE / "build/host/initbench"))
IMAGE = os.environ.get("INITBENCH_IMAGE_X86_64", str(SOURCE / "build/initbench-x86_64.cpio.gz"))
IMAGE_AARCH64 = os.environ.get("INITBENCH_IMAGE_AARCH64", str(SOURCE / "build/initbench-aarch64.cpio.gz"))

_kernels = {}


def fetch_kernel(flavour: str) -> str:
    """A Debian kernel flavour (amd64, cloud-amd64, rt-amd64, arm64), unpacked into the cache."""
    if flavour not in _kernels:
        _kernels[flavour] = subprocess.run(
            [str(SOURCE / "scripts/fetch-debs.sh"), "kernel", flavour],
            check=True, capture_output=True, text=True).stdout.strip()
    return _kernels[flavour]


def kernel() -> str:
    """Debian's amd64 kernel: INITBENCH_TEST_KERNEL, or fetched into the cache."""
    return os.environ.get("INITBENCH_TEST_KERNEL") or fetch_kernel("amd64")


@dataclass
class Run:
    code: int
    doc: dict
    log: str
    stdout: str
    stderr: str

    def records(self, type_=None):
        return [r for r in self.doc.get("records", []) if type_ is None or r.get("type") == type_]

    def one(self, type_):
        found = self.records(type_)
        assert len(found) == 1, f"expected one {type_} record, got {len(found)}"
        return found[0]


def run(*params, extra_args=(), timeout=300, workdir=None, kernel_path=None, arch="x86_64") -> Run:
    """`initbench run` with kernel parameters; returns exit code, results and console log."""
    image = IMAGE_AARCH64 if arch == "aarch64" else IMAGE
    with tempfile.TemporaryDirectory(prefix="initbench-test-") as tmp:
        out, log = Path(tmp) / "results.json", Path(tmp) / "console.log"
        accel = [] if "--accel" in extra_args else ["--accel", "tcg"]
        cmd = [INITBENCH, "run", "--arch", arch, "--kernel", kernel_path or kernel(), "--image", image, *accel,
               "--out", str(out), "--log", str(log), *extra_args, "--", *params]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        doc = json.loads(out.read_text()) if out.exists() else {}
        text = log.read_text(errors="replace") if log.exists() else ""
        if workdir is not None:
            (Path(workdir) / "console.log").write_text(text)
        return Run(p.returncode, doc, text, p.stdout, p.stderr)


def parse(log_path, *extra):
    with tempfile.TemporaryDirectory(prefix="initbench-test-") as tmp:
        out = Path(tmp) / "results.json"
        p = subprocess.run([INITBENCH, "parse", str(log_path), "--out", str(out), *extra],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, (json.loads(out.read_text()) if out.exists() else {})
