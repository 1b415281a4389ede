"""Checks a built initbench image: the entries init needs, reproducibility properties
(sorted entries, zero mtimes and owners, no gzip timestamp), no build paths inside, and the
size budget. Usage: check_image.py IMAGE BUILD_PATH [BUILD_PATH ...]"""
import gzip
import struct
import sys

# What a lab moves over TFTP and the kernel unpacks at every boot. BusyBox is about 1 MiB
# of it gzip'd, the init the rest; at 1.5 MiB the probes' and loads' growth ran out of room
# (1546 KiB), so the budget is 2 MiB until the init is slimmed (-Os, --gc-sections).
BUDGET = 2 * 1024 * 1024


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


def main(image, *build_paths):
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
          f"(budget {BUDGET / 1024:.0f} KiB)")
    if len(raw) > BUDGET:
        problems.append("over the size budget")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
