#!/usr/bin/env python3
"""docs/hacking.md's walk-through, tested: in a scratch copy of the tree, add a load (yield)
and a probe (exits) exactly as the page says, each only its own files (tests/walkthrough/yield,
tests/walkthrough/exits), regenerate what the page says is generated, and build and run what
checks a unit on the host: the catalogs, the key table, the results schema, each load run
natively. It fails when any other file needed an edit, or when a check does not see the new
units.

A host-only configure (no guest images) at -O0, and only the targets the checks need. The
probe's kernel side is compiled as the guest build does (clang -target bpf, a bpftool
skeleton) and its loader checked by the compiler against the host's libbpf headers; it is
not linked into an image here.

    walkthrough.py SOURCE          ctest's walkthrough test (label walkthrough)"""
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
UNITS = {"yield": "payload/yield", "exits": "bpf/exits"}
# What the page says a maintainer regenerates: nothing else may change.
GENERATED = {"docs/keys.md", "docs/schema/defs.schema.json"}


def run(cmd, cwd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run(cmd, cwd=cwd, check=True, **kw)


def copy_tree(source, to):
    """The tree as git sees it (tracked and new files, no build directory)."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=source, check=True,
                           capture_output=True).stdout.split(b"\0")
    for name in filter(None, files):
        path = Path(os.fsdecode(name))
        if not (source / path).is_file():  # deleted, not yet committed
            continue
        (to / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / path, to / path)
    git = ["git", "-c", "user.name=walkthrough", "-c", "user.email=walkthrough@invalid"]
    run(git + ["init", "-q"], to)
    run(git + ["add", "-A"], to)
    run(git + ["commit", "-q", "-m", "the tree before the walk-through"], to)


def changed_files(tree):
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tree, check=True,
                         capture_output=True, text=True).stdout
    return {line[3:] for line in out.splitlines()}


def main():
    source = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory(prefix="initbench-walkthrough-") as tmp:
        tree = Path(tmp) / "initbench"
        copy_tree(source, tree)
        for unit, folder in UNITS.items():
            shutil.copytree(HERE / unit, tree / folder)
        build = tree / "build"
        run(["cmake", "-S", tree, "-B", build, "-G", "Ninja", "-DINITBENCH_ARCHES=", "-DBUILD_TESTING=ON",
             "-DCMAKE_BUILD_TYPE=", "-DCMAKE_CXX_FLAGS=-O0"], tree, stdout=subprocess.DEVNULL)
        # The page's regeneration step, then the tests that check the declarations.
        run(["ninja", "-C", build, "reference", "catalog_unit_tests"], tree, stdout=subprocess.DEVNULL)
        reference = build / "host/initbench-reference"

        # The build found both units without a list edited by hand.
        keys = subprocess.run([reference, "keys"], check=True, capture_output=True, text=True).stdout
        for key in ("yield.batch", "exits"):
            assert key in keys.split(), f"the key reference does not list {key}"
        defs = json.loads((tree / "docs/schema/defs.schema.json").read_text())["$defs"]
        assert "exits" in defs["probe_name"]["enum"], defs["probe_name"]
        assert "batch" in defs["load_params"]["properties"], defs["load_params"]

        # The host's checks, with the new units in them: the catalogs, the declarations
        # against the generated schema (and its records accepted, others refused), each load
        # run natively.
        tests = subprocess.run(
            ["ctest", "--test-dir", build, "--output-on-failure", "-R",
             r"^(LoadCatalog|LoadRegistry|LoadParams|ProbeCatalog|RecordTypes|Loads/EveryLoad)\."],
            cwd=tree, capture_output=True, text=True)
        print(tests.stdout[-3000:], tests.stderr, flush=True)
        assert tests.returncode == 0, "the host's checks failed with the new units"
        assert "EveryLoad.CountsAndLeavesNothingBehind/yield" in tests.stdout, "the new load was not run"
        check_records(tree)
        compile_probe(tree, build)

        extra = sorted(f for f in changed_files(tree)
                       if f not in GENERATED and not any(f.startswith(d + "/") for d in UNITS.values()))
        assert not extra, f"the walk-through needed edits docs/hacking.md does not name: {extra}"
        print("walkthrough: a load in 2 files and a probe in 3, nothing else edited by hand")


def check_records(tree):
    """A record of the new probe as its declaration says is accepted; one with a metric it
    does not declare is refused."""
    os.environ["INITBENCH_SOURCE"] = str(tree)
    sys.path.insert(0, str(tree / "tests/boot"))
    import schema_check
    record = {"v": 3, "type": "probe", "probe": "exits", "phase": "fork", "round": 0, "supported": True,
              "mechanism": "raw_tp/sched_process_exit", "exits": 12,
              "metrics": {"exits": {"value": 12, "unit": "tasks", "better": "none", "agg": "amean"}}}
    schema_check.validate_record(record)
    record["metrics"]["exited"] = record["metrics"]["exits"]
    assert schema_check.errors(record, "records.schema.json", limit=1), "an undeclared metric was accepted"


def compile_probe(tree, build):
    """The probe's kernel side into a BPF object and a skeleton, and its loader through the
    compiler (syntax and types only) with them and the generated catalogs."""
    work = build / "walkthrough-probe"
    work.mkdir()
    arch = {"x86_64": "x86", "aarch64": "arm64"}[platform.machine()]
    multiarch = subprocess.run(["gcc", "-print-multiarch"], check=True, capture_output=True, text=True).stdout.strip()
    run(["clang-14", "-g", "-O2", "-target", "bpf", f"-D__TARGET_ARCH_{arch}", "-I", tree,
         "-I", f"/usr/include/{multiarch}", "-c", tree / "bpf/exits/exits.bpf.c", "-o", work / "exits.bpf.o"], tree)
    with open(work / "exits.skel.h", "w") as skel:
        run(["bpftool", "gen", "skeleton", work / "exits.bpf.o", "name", "exits_bpf"], tree, stdout=skel)
    run(["g++", "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", tree, "-I", work,
         "-I", build / "generated", tree / "bpf/exits/exits.cpp"], tree)


if __name__ == "__main__":
    main()
