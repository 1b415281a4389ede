#!/usr/bin/env python3
"""Every path of this tree named in a comment or a document exists: a comment that points a
reader to host/boot/qemu.cpp, or a guide that sends a user to docs/compare.md, must not point
at a file that was moved or removed. A path counts when it starts with one of the tree's own
top-level folders; it may name a file, a folder, or a file's stem (init/commands for
init/commands.{h,cpp}), in the tree or among the build's outputs (generated headers, the
built CLI). Placeholders (payload/X/load.json, cmake/toolchains/ARCH-...) and globs are not
paths. Code is left to the compiler: includes, strings and names are not read, only comments
(C and C++ `//` and `/* */` lines, `#` in Python, shell and CMake) and Markdown.

    check_paths.py [BUILD_DIR]"""
import re
import subprocess
import sys
import unittest
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]

# Paths that name another tree's file, not this one's.
ELSEWHERE = {
    "scripts/kconfig/merge_config.sh": "the kernel source tree's script",
}

# Files whose paths are the files they are about to create.
SKIPPED = ("tests/walkthrough/", "tests/fuzz/corpus/", "docs/schema/")

COMMENT = {
    ".c": r"^\s*(?://|/\*|\*)(.*)", ".h": r"^\s*(?://|/\*|\*)(.*)", ".cpp": r"^\s*(?://|/\*|\*)(.*)",
    ".py": r"^\s*#(.*)", ".sh": r"^\s*#(.*)", ".cmake": r"^\s*#(.*)", "CMakeLists.txt": r"^\s*#(.*)",
}
# After code on the same line; a blank before the marker, so that "scheme://host" is no comment.
TRAILING = {".c": r"\s//(.*)", ".h": r"\s//(.*)", ".cpp": r"\s//(.*)", ".py": r"\s#\s(.*)", ".sh": r"\s#\s(.*)"}


def top_folders():
    return sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "build")


def texts(path):
    """The lines of `path` that are prose: its comments, or all of a Markdown file."""
    kind = path.name if path.name == "CMakeLists.txt" else path.suffix
    lines = path.read_text(errors="replace").splitlines()
    if kind == ".md":
        yield from enumerate(lines, 1)
        return
    if kind not in COMMENT:
        return
    whole, tail = re.compile(COMMENT[kind]), re.compile(TRAILING.get(kind, r"(?!)()"))
    for number, line in enumerate(lines, 1):
        if m := whole.match(line):
            yield number, m.group(1)
        elif m := tail.search(line):
            yield number, m.group(1)


def exists(path, roots):
    for root in roots:
        p = root / path
        if p.exists() or (p.parent.is_dir() and any(p.parent.glob(p.name + ".*"))):
            return True
    return False


def missing(build=None):
    """[(file, line, path)] for every path named that exists nowhere."""
    tops = top_folders()
    named = re.compile(r"(?<![\w/.$<>-])((?:" + "|".join(tops) + r")/[\w./+*-]*\w)")
    placeholder = re.compile(r"(^|[/_.-])[A-Z][A-Z0-9]*([/_.-]|$)")
    roots = [SOURCE] + ([Path(build), Path(build) / "generated"] if build else [])
    files = subprocess.run(["git", "-C", str(SOURCE), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    found = []
    for name in files:
        if name.startswith(SKIPPED):
            continue
        for number, text in texts(SOURCE / name):
            for m in named.finditer(text):
                path = m.group(1).rstrip(".")
                if any(c in path for c in "*${}") or placeholder.search(path) or path in ELSEWHERE:
                    continue
                if not exists(path, roots):
                    found.append((name, number, path))
    return found


class Paths(unittest.TestCase):
    def test_every_path_named_exists(self):
        gone = missing(BUILD)
        self.assertEqual(gone, [], "\n" + "\n".join(f"{f}:{n}: {p} does not exist" for f, n, p in gone))

    def test_a_moved_file_is_found(self):
        # The check itself: a comment naming a file that is not there is reported.
        tops = top_folders()
        self.assertIn("host", tops)
        self.assertFalse(exists("host/cli/no_such_file.cpp", [SOURCE]))
        self.assertTrue(exists("host/engine/ab", [SOURCE]), "a stem of ab.h and ab.cpp")


BUILD = None

if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BUILD = sys.argv.pop(1)
    unittest.main()
