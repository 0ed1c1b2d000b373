"""Loading a price table: model name -> US dollars per million input and output tokens."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay._validation import problems_from
from assay.cases import content_hash
from assay.errors import InputFormatError, Location, Problem
from assay.load._records import read_text, read_yaml
from assay.report import Price

_FREE_DATA = "; put free data under metadata"


@dataclass(frozen=True)
class PriceTable:
    """A loaded price table: its prices, the file it came from and its content hash."""

    prices: dict[str, Price]
    source: str
    hash: str

    def stored(self) -> dict[str, Any]:
        """The form kept in a run's metadata (``prices``), from which reports price it."""
        table = {name: price.model_dump() for name, price in self.prices.items()}
        return {"source": self.source, "hash": self.hash, "table": table}


def _lines(text: str) -> dict[str, int]:
    import yaml

    root = yaml.compose(text, Loader=yaml.SafeLoader)
    found: dict[str, int] = {}
    if isinstance(root, yaml.MappingNode):
        for key, _value in root.value:
            found[str(key.value)] = key.start_mark.line + 1
    return found


def load_prices(path: str | Path) -> PriceTable:
    """A price table from YAML or JSON shaped ``{model: {input: USD, output: USD}}`` (per
    million tokens); every problem is reported with its file, line and model."""
    p = Path(path)
    data = read_yaml(p, "price table")
    if not isinstance(data, dict) or not data:
        raise InputFormatError(
            [Problem("expected a mapping of model -> {input: USD, output: USD}", Location(str(p)))],
            summary=f"{p}: invalid price table",
        )
    lines = _lines(read_text(p))
    problems: list[Problem] = []
    prices: dict[str, Price] = {}
    for model, entry in data.items():
        where = Location(str(p), lines.get(str(model)))
        if not isinstance(entry, dict):
            problems.append(
                Problem(f"{model}: expected {{input: USD, output: USD}} per million tokens", where)
            )
            continue
        try:
            prices[str(model)] = Price.model_validate(entry)
        except ValidationError as err:
            problems.extend(
                Problem(f"{model}: {pr.message.replace(_FREE_DATA, '')}", where, pr.field)
                for pr in problems_from(err, None, Price)
            )
    if problems:
        raise InputFormatError(problems, summary=f"{p}: invalid price table")
    table = {name: price.model_dump() for name, price in prices.items()}
    return PriceTable(prices, str(p), content_hash(table))
