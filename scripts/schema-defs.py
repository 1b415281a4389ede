#!/usr/bin/env python3
"""Writes the definitions that `initbench schema` generates from the declarations (load_params,
from each payload/X/X_load.h) into docs/schema/defs.schema.json. tests/unit/test_schema.py
fails until the committed file holds them.

    scripts/schema-defs.py [INITBENCH]     default: build/host/initbench
`ninja -C build reference` runs it with build/host/initbench-reference (the same output)."""
import json
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]
cli = sys.argv[1] if len(sys.argv) > 1 else str(SOURCE / "build/host/initbench")
generated = json.loads(subprocess.run([cli, "schema"], check=True, capture_output=True, text=True).stdout)
path = SOURCE / "docs/schema/defs.schema.json"
defs = json.loads(path.read_text())
defs["$defs"].update(generated)
path.write_text(json.dumps(defs, indent=2, ensure_ascii=False) + "\n")
print(f"{path.relative_to(SOURCE)}: {', '.join(generated)} written")
