#!/usr/bin/env python3
"""host/'s folders include only what they link: a file of host/X/ may include host/Y/ only
when X's library links Y's, directly or through another (host/CMakeLists.txt's
target_link_libraries, the one place the order is declared). An include that goes against
the order fails here, before it turns into a link error in one configuration or a cycle."""
import re
import sys
import unittest
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
HOST = SOURCE / "host"


def link_graph(cmake_text):
    """{folder: folders its library links directly}, from target_link_libraries calls."""
    graph = {}
    for target, args in re.findall(r"target_link_libraries\(initbench_host_(\w+)(.*?)\)", cmake_text, re.S):
        graph.setdefault(target, set()).update(re.findall(r"\binitbench_host_(\w+)", args))
    for folder in re.findall(r"host_library\((\w+)", cmake_text):
        graph.setdefault(folder, set())
    return graph


def reachable(graph, start):
    seen, todo = set(), [start]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def violations(host=HOST):
    graph = link_graph((host / "CMakeLists.txt").read_text())
    found = []
    for folder in sorted(graph):
        allowed = reachable(graph, folder) | {folder}
        for path in sorted((host / folder).glob("*.[ch]*")):
            for line_no, line in enumerate(path.read_text().splitlines(), 1):
                m = re.match(r'\s*#\s*include\s+"host/(\w+)/', line)
                if m and m.group(1) not in allowed:
                    found.append(f"{path.relative_to(host.parent)}:{line_no}: includes host/{m.group(1)}/, "
                                 f"which initbench_host_{folder} does not link")
    return found


class Includes(unittest.TestCase):
    def test_every_folder_includes_only_what_it_links(self):
        self.assertEqual(violations(), [])

    def test_the_graph_is_read(self):
        graph = link_graph((HOST / "CMakeLists.txt").read_text())
        self.assertIn("compare", reachable(graph, "cli"))
        self.assertNotIn("cli", reachable(graph, "compare"))


if __name__ == "__main__":
    sys.exit(unittest.main())
