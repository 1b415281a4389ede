"""Checks a built initbench image: the entries init needs, reproducibility properties
(sorted entries, zero mtimes and owners, no gzip timestamp), no build paths inside, and the
size budget (the build's INITBENCH_IMAGE_BUDGET). Usage: check_image.py IMAGE BUDGET_BYTES BUILD_PATH ...

With a MKIMAGE argument instead (check_image.py --mkimage MKIMAGE): the build's own check,
initbench-mkimage refusing an image over its budget with the breakdown and leaving no file."""
import os
import subprocess
import tempfile
import gzip
import struct
import sys


def entries(data):
    """Yields (name, mode, uid, gid, mtime, rdevmajor, rdevminor, body) of a newc archive."""
    pos = 0
    while True:
        hdr = data[pos:pos + 110]
        assert hdr[:6] == b"070701", f"bad newc magic at {pos}"
        f = [int(hdr[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        namesize, filesize = f[11], f[6]
        name = data[pos + 110:pos + 110 + namesize - 1].decode()
        pos = (pos + 110 + namesize + 3) & ~3
        body = data[pos:pos + filesize]
        pos = (pos + filesize + 3) & ~3
        if name == "TRAILER!!!":
            return
        yield name, f[1], f[2], f[3], f[5], f[9], f[10], body


def main(image, budget, *build_paths):
    budget = int(budget)
    raw = open(image, "rb").read()
    problems = []
    if struct.unpack("<I", raw[4:8])[0] != 0:
        problems.append("gzip header carries a timestamp")
    data = gzip.decompress(raw)
    found = list(entries(data))
    names = [e[0] for e in found]
    if names != sorted(names):
        problems.append("entries are not sorted")
    by_name = {e[0]: e for e in found}
    for name, mode, uid, gid, mtime, *_ in found:
        if mtime or uid or gid:
            problems.append(f"{name}: mtime/uid/gid not zero")
    for need in ["init", "bin/busybox", "bin/sh", "dev/console", "proc", "sys", "tmp",
                 "etc/initbench/profiles/default.conf"]:
        if need not in by_name:
            problems.append(f"missing /{need}")
    if "init" in by_name and not by_name["init"][1] & 0o111:
        problems.append("/init is not executable")
    if "dev/console" in by_name and by_name["dev/console"][5:7] != (5, 1):
        problems.append("/dev/console is not char 5:1")
    for path in build_paths:
        if path.encode() in data:
            problems.append(f"build path {path} inside the image")
    print(f"{image}: {len(found)} entries, {len(raw) / 1024:.1f} KiB compressed "
          f"(budget {budget / 1024:.0f} KiB)")
    if len(raw) > budget:
        problems.append("over the size budget")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


def check_mkimage_budget(mkimage):
    """An image over its budget fails the build: exit 1, the size, the excess and the parts
    named, and no image left behind; the same image within its budget is written."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        init = os.path.join(tmp, "init")
        with open(init, "wb") as f:
            f.write(os.urandom(4096))  # incompressible: the image is over 4 KiB
        manifest = os.path.join(tmp, "manifest")
        with open(manifest, "w") as f:
            f.write(f"dir /bin 0755\nfile /init 0755 {init}\n")
        out = os.path.join(tmp, "x.cpio.gz")
        p = subprocess.run([mkimage, manifest, out, "4000"], capture_output=True, text=True)
        if p.returncode != 1:
            problems.append(f"over budget: exit {p.returncode}, not 1")
        for words in ("over its budget of 4000", "init 4 KiB", "busybox"):
            if words not in p.stderr:
                problems.append(f"over budget: {words!r} not in {p.stderr!r}")
        if os.path.exists(out):
            problems.append("over budget: the image was left behind")
        p = subprocess.run([mkimage, manifest, out, "8000"], capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            problems.append(f"within budget: exit {p.returncode}, {p.stderr!r}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1] == "--mkimage":
        sys.exit(check_mkimage_budget(sys.argv[2]))
    sys.exit(main(*sys.argv[1:]))
