"""Lists the boot tests for CMake, one line each: NAME|UNITTEST_TARGET|LABELS|TIMEOUT|ARCH|BOOTS|BOOT_S.

A test is every class of a tests/boot/test_*.py module that derives from unittest.TestCase
(directly or through a class of the same module) and has test_ methods: a new class runs
without anyone listing it. The modules are read with `ast`, never imported, so that nothing
they do on import (finding kernels, running the built CLI) happens at configure time.

A class may say, in class attributes of literal values:
    ctest_per_method = True      one ctest test per method (each within its own timeout)
    ctest_labels = ("matrix",)   labels besides "boot"
    ctest_boots = 3              boots one test process makes (default 1; setUpClass's count)
    ctest_boot_s = 1800          seconds one of its boots may take, when more than limits.BOOT_S
    ctest_extra_s = 600          seconds it needs besides its boots and limits.SETUP_S
Each may also be a constant of limits.py (`limits.KERNEL_BUILD_BASE_S`).
    ctest_arch = "aarch64"       only when the build makes that architecture's image
Its ctest TIMEOUT is derived from these (limits.py), never written by hand.
"""
import ast
import sys
from pathlib import Path

import limits


def value(node):
    """A class attribute's value: a literal, or a constant of limits.py (`limits.NAME`)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "limits":
        return getattr(limits, node.attr)
    return ast.literal_eval(node)


def class_facts(module: ast.Module):
    classes = {node.name: node for node in module.body if isinstance(node, ast.ClassDef)}

    def bases(node):
        return [b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases]

    def is_test_case(name, seen=()):
        node = classes.get(name)
        if node is None or name in seen:
            return False
        return any(b == "unittest.TestCase" or is_test_case(b, seen + (name,)) for b in bases(node))

    def methods(name):
        node = classes.get(name)
        if node is None:
            return []
        own = [f.name for f in node.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")]
        inherited = [m for b in bases(node) for m in methods(b)]
        return own + [m for m in inherited if m not in own]

    def attributes(node):
        found = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if stmt.targets[0].id.startswith("ctest_"):
                    found[stmt.targets[0].id] = value(stmt.value)
        return found

    for name, node in classes.items():
        if is_test_case(name) and methods(name):
            yield name, methods(name), attributes(node)


def main(directory):
    for path in sorted(Path(directory).glob("test_*.py")):
        module = ast.parse(path.read_text(), filename=str(path))
        for name, methods, attrs in class_facts(module):
            labels = ";".join(("boot",) + tuple(attrs.get("ctest_labels", ())))
            boots = attrs.get("ctest_boots", 1)
            boot_s = limits.scaled(attrs["ctest_boot_s"]) if "ctest_boot_s" in attrs else limits.BOOT_S
            timeout = limits.ctest_timeout(boots, boot_s, limits.scaled(attrs.get("ctest_extra_s", 0)))
            arch = attrs.get("ctest_arch", "")
            cases = [f"{name}.{m}" for m in methods] if attrs.get("ctest_per_method") else [name]
            for case in cases:
                # CMake reads a line as a list: the labels go as one field, ','-separated.
                print("|".join([case, f"{path.stem}.{case}", labels.replace(";", ","), str(timeout), arch,
                                str(boots), f"{boot_s:g}"]))


if __name__ == "__main__":
    main(sys.argv[1])
