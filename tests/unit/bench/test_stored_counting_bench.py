"""The side-by-side counting benchmark runs on a small store and writes its section. No
timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import stored_counting  # noqa: E402
import stored_scale  # noqa: E402


def test_each_way_is_measured_and_the_section_written(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'assay.db'}"
    stored_scale.fill(url, 400)
    total, figures = stored_counting.measure(url, 1)
    assert total == 400
    columnar = {name: cpu for name, cpu in figures.items() if "ConnectorX" in name}
    assert len(figures) - len(columnar) == 8
    assert all(cpu >= 0 for name, cpu in figures.items() if name not in columnar)
    # the columnar paths, when assay[columnar] is installed; a note when it is not
    assert columnar == {"counted: ConnectorX + Polars / DuckDB": "not installed"} or (
        len(columnar) == 3 and all(isinstance(cpu, float) and cpu >= 0 for cpu in columnar.values())
    )
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n")
    assert stored_counting.main([url, "--repeat", "1", "--write", str(results)]) == 0
    text = results.read_text()
    assert text.count("<!-- begin stored_counting -->") == 1
    assert "| counted: records and judgments apart, two packed texts + numpy (assay) |" in text
    assert "| counted: records joined to judgments in SQLite, one packed text + numpy |" in text
    assert "400 case-trials" in text


def test_polars_and_duckdb_count_what_assay_counts(tmp_path: Path) -> None:
    """The columnar paths count the same case-trials (``assay[columnar]`` installed)."""
    import pytest

    for module in ("connectorx", "polars", "duckdb"):
        pytest.importorskip(module)
    from assay.store import open_store
    from assay.store._case_index import read_case_index

    url = f"sqlite:///{tmp_path / 'assay.db'}"
    stored_scale.fill(url, 400)
    store = open_store(url, create=False)
    try:
        with store.engine.connect() as conn:
            index = read_case_index(conn, "base")
            recorded = conn.exec_driver_sql(
                "SELECT COUNT(*) FROM records WHERE run_id = 'base'"
            ).scalar_one()
    finally:
        store.close()
    assert index is not None
    params = {"run": "base", "trials": 1, "grader": "structured", "version": "1"}
    params["cases"] = len(index.codes)
    by_polars = stored_counting._polars_counts(url, params, index.codes)
    assert by_polars == stored_counting._duckdb_counts(url, params, index.codes)
    assert 0 < recorded < 400  # the workload leaves some case-trials missing
    assert sum(row[-1] for row in by_polars) == recorded  # each recorded one, once
