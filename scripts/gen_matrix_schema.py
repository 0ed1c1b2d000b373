"""Write docs/matrix.schema.json from the matrix report model (run after changing it)."""

from __future__ import annotations

import json
from pathlib import Path

from assay.compare import matrix_schema

TARGET = Path(__file__).resolve().parent.parent / "docs" / "matrix.schema.json"


def schema_text() -> str:
    """The schema file's exact contents."""
    return json.dumps(matrix_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    TARGET.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {TARGET}")
