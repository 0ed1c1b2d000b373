"""Price tables: model -> USD per million input/output tokens; every problem located."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InputFormatError
from assay.load import load_prices
from assay.report import Price


def test_a_price_table_loads_with_its_hash(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("gpt-x: {input: 0.15, output: 0.6}\nlocal: {input: 0, output: 0}\n")
    table = load_prices(path)
    assert table.prices == {
        "gpt-x": Price(input=0.15, output=0.6),
        "local": Price(input=0, output=0),
    }
    assert table.hash.startswith("sha256:") and table.source == str(path)
    same = tmp_path / "again.yaml"
    same.write_text("local: {output: 0, input: 0}\ngpt-x: {output: 0.6, input: 0.15}\n")
    assert load_prices(same).hash == table.hash  # the content decides, not its layout


def test_every_problem_is_named_with_its_line_and_model(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(
        "ok: {input: 1, output: 2}\n"
        "negative: {input: -1, output: 2}\n"
        "half: {input: 1}\n"
        "flat: 3\n"
        "typo: {input: 1, ouput: 2}\n"
    )
    with pytest.raises(InputFormatError) as err:
        load_prices(path)
    text = str(err.value)
    assert f"{path}:2: negative: input: input should be greater than or equal to 0" in text
    assert f"{path}:3: half: output is required" in text
    assert f"{path}:4: flat: expected {{input: USD, output: USD}} per million tokens" in text
    assert f'{path}:5: typo: unknown field "ouput"' in text


@pytest.mark.parametrize("text", ["[]\n", "just text\n", "a: 1\na: 2\n"])
def test_a_table_that_is_not_a_mapping_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    with pytest.raises(InputFormatError):
        load_prices(path)
