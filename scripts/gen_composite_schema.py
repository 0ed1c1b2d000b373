"""Write docs/composite.schema.json from the composite report model (run after changing it).

.venv/bin/python scripts/gen_composite_schema.py
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.report import composite_schema

TARGET = Path(__file__).resolve().parent.parent / "docs" / "composite.schema.json"


def schema_text() -> str:
    """The schema file's exact contents."""
    return json.dumps(composite_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    TARGET.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {TARGET}")
