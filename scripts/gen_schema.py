"""Write docs/report.schema.json from the ``Report`` model (run after changing the model).

.venv/bin/python scripts/gen_schema.py
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.report import report_schema

TARGET = Path(__file__).resolve().parent.parent / "docs" / "report.schema.json"


def schema_text() -> str:
    """The schema file's exact contents."""
    return json.dumps(report_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    TARGET.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {TARGET}")
