"""A dynamically linked Debian program for a guest of the static, musl-only image: the
binary, the shared libraries `ldd` lists and the dynamic loader are copied to one directory,
which `initbench pack --add DIR:/payload/NAME` puts into the image. In the guest the program
runs through that loader:

    /payload/NAME/ld.so --library-path /payload/NAME/lib /payload/NAME/PROGRAM ARGS

Used by scripts/perf-agreement.py (perf) and scripts/bench-probes.py (bpftrace)."""
import re
import shutil
import subprocess
from pathlib import Path


def dynamic_kit(binary: str, dest: Path) -> Path:
    """Copies `binary`, its libraries (to dest/lib) and the loader (dest/ld.so) under dest;
    returns the binary's path there."""
    (dest / "lib").mkdir(parents=True, exist_ok=True)
    target = dest / Path(binary).name
    shutil.copy(binary, target)
    ldd = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
    for line in ldd.splitlines():
        m = re.search(r"(/\S+) \(0x", line)
        if not m:
            continue
        lib = Path(m.group(1))
        if "ld-linux" in lib.name:
            shutil.copy(lib.resolve(), dest / "ld.so")
        else:
            shutil.copy(lib.resolve(), dest / "lib" / lib.name)
    return target


def loader_command(guest_dir: str, program: str) -> str:
    """The command line that starts `program` of a kit packed at guest_dir."""
    return f"{guest_dir}/ld.so --library-path {guest_dir}/lib {guest_dir}/{program}"
