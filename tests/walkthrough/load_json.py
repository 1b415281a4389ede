#!/usr/bin/env python3
"""A load's declaration, payload/X/load.json, as cmake/Catalog.cmake turns it into the header
the build compiles: every key type and field lands in the C++ table (checked by the compiler
with static_asserts on the generated declaration), and a file with a mistake stops the
configure with the file's name and the mistake, instead of a field silently dropped.

    load_json.py SOURCE          ctest's catalog.LoadJson test (label unit)"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

KEYS = [
    {"name": "toy.count", "type": "uint", "default": "8", "min": 1, "max": 65536, "shown_as": "count",
     "help": "a count with \"quotes\" and a back\\\\slash; and a semicolon"},
    {"name": "toy.interval", "type": "seconds", "default": "0.1", "min": 0.000001, "max": 60, "help": "seconds"},
    {"name": "toy.mode", "type": "enum", "default": "a", "choices": ["a", "b"], "shown_as": "mode", "help": "choices"},
    {"name": "toy.groups", "type": "list", "default": "1", "min": 1, "max": 1024, "help": "counts in a range"},
    {"name": "toy.clients", "type": "list", "default": "1", "items": "counts", "help": "tcp-style counts"},
    {"name": "toy.note", "type": "string", "default": "", "help": "text"},
    {"name": "toy.on", "type": "flag", "default": "0", "help": "a flag"},
]
GOOD = {"op_unit": "toy operation", "help": "a toy ${NOT_A_VARIABLE} @NOR_THIS@", "sweep": "toy.groups", "keys": KEYS}

# What the compiler must find in the generated header.
ASSERTS = r"""
#include "payload/toy/toy_load.h"
using namespace initbench;
constexpr bool eq(std::string_view a, std::string_view b) { return a == b; }
static_assert(eq(toy_declaration.name, "toy") && eq(toy_declaration.op_unit, "toy operation"));
static_assert(eq(toy_declaration.help, "a toy ${NOT_A_VARIABLE} @NOR_THIS@"));
static_assert(eq(toy_declaration.sweep, "toy.groups") && toy_declaration.keys.size() == 7);
static_assert(toy_keys[0].kind == Kind::uint && toy_keys[0].umin == 1 && toy_keys[0].umax == 65536);
static_assert(eq(toy_keys[0].shown_as, "count") && eq(toy_keys[0].def, "8"));
static_assert(eq(toy_keys[0].help, "a count with \"quotes\" and a back\\\\slash; and a semicolon"));
static_assert(toy_keys[1].kind == Kind::seconds && toy_keys[1].min == 0.000001 && toy_keys[1].max == 60);
static_assert(toy_keys[2].kind == Kind::enumeration && eq(toy_keys[2].choices, "a|b"));
static_assert(toy_keys[3].kind == Kind::list && toy_keys[3].umin == 1 && toy_keys[3].umax == 1024);
static_assert(toy_keys[4].kind == Kind::list && toy_keys[4].check == &check_count_item);
static_assert(toy_keys[5].kind == Kind::string && toy_keys[6].kind == Kind::flag);
static_assert(toy_keys[1].shown_as.empty() && toy_keys[4].check != nullptr && toy_keys[3].check == nullptr);
"""

# A mistake, and what the configure must say of it.
BAD = [
    ("a misspelled field", {**GOOD, "sweeep": "toy.groups"}, 'unknown field "sweeep"'),
    ("a misspelled key field", {**GOOD, "keys": [{**KEYS[0], "shownas": "count"}]}, 'unknown field "shownas"'),
    ("a count without bounds", {**GOOD, "keys": [{k: v for k, v in KEYS[0].items() if k != "max"}]},
     'needs "min" and "max"'),
    ("an unknown type", {**GOOD, "keys": [{**KEYS[0], "type": "integer"}]}, 'unknown type "integer"'),
    ("no operation", {k: v for k, v in GOOD.items() if k != "op_unit"}, 'no "op_unit"'),
    ("an unknown item kind", {**GOOD, "keys": [{**KEYS[4], "items": "cpus"}]}, '"items" can only be "counts"'),
    ("not an object", [], "not a JSON object"),
]


def generate(source, tree, declaration):
    folder = tree / "payload/toy"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "load.json").write_text(json.dumps(declaration) if not isinstance(declaration, str) else declaration)
    out = tree / "out"
    return subprocess.run(["cmake", f"-DCATALOG_DIR={out}", f"-DCATALOG_ROOT={tree}", "-P",
                           source / "cmake/Catalog.cmake"], capture_output=True, text=True)


def main():
    source = Path(sys.argv[1]).resolve()
    failures = []
    with tempfile.TemporaryDirectory(prefix="initbench-load-json-") as tmp:
        tree = Path(tmp)
        done = generate(source, tree, GOOD)
        assert done.returncode == 0, done.stderr
        (tree / "check.cpp").write_text(ASSERTS)
        compiled = subprocess.run(["g++", "-std=c++20", "-fsyntax-only", "-I", source, "-I", tree / "out",
                                   tree / "check.cpp"], capture_output=True, text=True)
        if compiled.returncode != 0:
            failures.append(f"the generated header is not what load.json says:\n{compiled.stderr[-3000:]}")
        for what, declaration, says in BAD:
            done = generate(source, tree, declaration)
            if done.returncode == 0:
                failures.append(f"{what}: the configure went on")
            elif says not in (said := " ".join(done.stderr.split())) or "payload/toy/load.json" not in said:
                failures.append(f"{what}: expected {says!r} and the file's name, got:\n{done.stderr}")
    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print(f"load.json: every key type reaches the header; {len(BAD)} mistakes each stop the configure")


if __name__ == "__main__":
    main()
