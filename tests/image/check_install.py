"""`cmake --install` puts the CLI and the images where a lab can serve them, and the
installed CLI finds its images there. Usage: check_install.py BUILD_DIR ARCH..."""
import subprocess
import sys
import tempfile
from pathlib import Path


def main(build, *arches):
    with tempfile.TemporaryDirectory(prefix="initbench-install-") as prefix:
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, capture_output=True)
        cli = Path(prefix) / "bin/initbench"
        problems = [] if cli.exists() else ["bin/initbench missing"]
        for arch in arches:
            image = Path(prefix) / f"share/initbench/initbench-{arch}.cpio.gz"
            if not image.exists():
                problems.append(f"{image} missing")
        if cli.exists():
            out = subprocess.run([str(cli), "kconfig", "--help"], capture_output=True, text=True)
            if out.returncode != 0:
                problems.append("installed CLI does not run")
            # Without --image the installed CLI must pick PREFIX/share/initbench's image. Any
            # file passes as a kernel here: QEMU refuses it, which is a boot failure (3),
            # not "no image" (2).
            results = Path(prefix) / "r.json"
            run = subprocess.run([str(cli), "run", "--kernel", str(cli), "--accel", "tcg", "--timeout", "30",
                                  "--quiet", "--out", str(results)], capture_output=True, text=True)
            if run.returncode != 3 or str(Path(prefix) / "share/initbench") not in results.read_text():
                problems.append(f"installed CLI did not use its installed image (exit {run.returncode}): "
                                f"{run.stderr.strip()}")
        for p in problems:
            print("FAIL:", p)
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
