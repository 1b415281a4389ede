"""The command blocks of README.md and docs/*.md, by the marker on the line before each.

A ```sh block a user is told to run is marked with an HTML comment on the line before it:

    <!-- recipe: NAME. what runs it, and what it stands in for -->   run by a test, as written
    <!-- not run: why -->                                           why no test can run it

`block(NAME)` returns a recipe's text; `unmarked()` lists the blocks that carry neither.
This module imports nothing of the project's: the docs check (tests/docs) uses it too."""
import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- (recipe: ([\w-]+)\.|not run: ).*-->\s*$")


def documents():
    return [SOURCE / "README.md", *sorted((SOURCE / "docs").glob("*.md"))]


def blocks():
    """Every ```sh block: (document, line number, marker line or None, recipe name or None, text)."""
    found = []
    for doc in documents():
        lines = doc.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```sh":
                end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
                marker = MARKER.match(lines[i - 1].strip()) if i else None
                found.append((doc, i + 1, marker.group(0) if marker else None,
                              marker.group(2) if marker else None, "\n".join(lines[i + 1:end]) + "\n"))
                i = end
            i += 1
    return found


def block(name):
    """The text of the recipe NAME, as the docs print it."""
    texts = [text for _, _, _, recipe, text in blocks() if recipe == name]
    if len(texts) != 1:
        raise AssertionError(f"{len(texts)} blocks are marked 'recipe: {name}.', not one")
    return texts[0]


def unmarked():
    return [f"{doc.relative_to(SOURCE)}:{line}" for doc, line, marker, _, _ in blocks() if marker is None]
