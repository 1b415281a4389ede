#!/usr/bin/env python3
"""Every ```sh block of README.md and docs/ says whether a test runs it as written (`<!--
recipe: NAME. ... -->`, and some test names that recipe) or why none can (`<!-- not run: why
-->`): a command a user is told to run is never left untried by accident."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "boot"))
import recipes  # noqa: E402


class Recipes(unittest.TestCase):
    def test_every_block_is_marked(self):
        self.assertEqual(recipes.unmarked(), [], "mark each: <!-- recipe: NAME. ... --> or <!-- not run: why -->")

    def test_every_recipe_is_run_by_a_test(self):
        tests = "".join(p.read_text() for p in (recipes.SOURCE / "tests").rglob("test_*.py"))
        names = {name for _, _, _, name, _ in recipes.blocks() if name}
        self.assertTrue(names, "at least the README's bisection is a recipe")
        self.assertEqual(sorted(n for n in names if f'recipes.block("{n}")' not in tests), [])


if __name__ == "__main__":
    unittest.main()
