"""Write docs/trend.schema.json from the trend model (run after changing it)."""

from __future__ import annotations

import json
from pathlib import Path

from assay.trend import trend_schema

TARGET = Path(__file__).resolve().parent.parent / "docs" / "trend.schema.json"


def schema_text() -> str:
    """The schema file's exact contents."""
    return json.dumps(trend_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    TARGET.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {TARGET}")
