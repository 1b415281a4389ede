"""Validates results documents and records against the JSON Schemas in docs/schema/.

Works with Debian's python3-jsonschema (4.10, RefResolver) and with newer releases
(4.18+, the `referencing` registry). Used by the boot tests (bootlib.run/parse) and by
tests/unit/test_schema.py."""
import functools
import json
import os
from pathlib import Path

import jsonschema
from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(os.environ.get("INITBENCH_SOURCE", Path(__file__).resolve().parents[2])) / "docs/schema"


@functools.lru_cache(maxsize=None)
def schemas():
    """{file name: schema} for every docs/schema/*.schema.json."""
    return {p.name: json.loads(p.read_text()) for p in sorted(SCHEMA_DIR.glob("*.schema.json"))}


@functools.lru_cache(maxsize=None)
def validator(name="results.schema.json"):
    """A Draft 2020-12 validator for docs/schema/NAME that resolves the other files locally
    (their $id is https://initbench.invalid/schema/FILE: never fetched)."""
    docs = schemas()
    schema = docs[name]
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
    except ImportError:  # jsonschema < 4.18
        store = {s["$id"]: s for s in docs.values()}
        resolver = jsonschema.RefResolver(schema["$id"], schema, store=store)
        return Draft202012Validator(schema, resolver=resolver)
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s, default_specification=DRAFT202012)) for s in docs.values())
    return Draft202012Validator(schema, registry=registry)


def _path(error):
    return "/" + "/".join(str(p) for p in error.absolute_path)


def errors(instance, name="results.schema.json", limit=5):
    """The first `limit` validation errors, deepest first, as 'PATH: MESSAGE' lines."""
    found = sorted(validator(name).iter_errors(instance), key=lambda e: (-len(e.absolute_path), str(e.absolute_path)))
    lines = []
    for e in found[:limit]:
        # oneOf/anyOf report why each branch failed in their context: show the most relevant.
        while e.context:
            e = jsonschema.exceptions.best_match(e.context)
        lines.append(f"{_path(e)}: {e.message[:300]}")
    return lines


def validate(instance, name):
    problems = errors(instance, name)
    if problems:
        raise AssertionError(f"not valid against docs/schema/{name}:\n  " + "\n  ".join(problems))


def validate_results(doc):
    """AssertionError naming the path and message of the first errors, if `doc` (a results
    document) or any of its records does not match docs/schema/results.schema.json."""
    validate(doc, "results.schema.json")


def validate_record(record):
    validate(record, "records.schema.json")
