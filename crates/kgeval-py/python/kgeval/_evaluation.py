"""The result of a family's ``evaluate``: the command line's JSON as a dict, plus the score
table that :func:`kgeval.compare` takes."""

from __future__ import annotations

import json
from typing import Any, Dict, Tuple

from kgeval._kgeval import ScoreTable


class Evaluation(dict):
    """``kgeval <family> --format json`` as a dict (equal to ``json.load`` of the command
    line's output), with the per-item score table as :attr:`table`: pass the result itself to
    :func:`kgeval.compare` to test whether its systems differ significantly."""

    table: ScoreTable

    def __init__(self, data: Dict[str, Any], table: ScoreTable) -> None:
        super().__init__(data)
        self.table = table

    @classmethod
    def _from_native(cls, native: Tuple[str, ScoreTable]) -> "Evaluation":
        text, table = native
        return cls(json.loads(text), table)

    def to_pandas(self) -> Any:
        """The per-item score table as a long data frame (``system, item, metric, value``)."""
        import pandas

        return pandas.DataFrame(self.table.rows(), columns=["system", "item", "metric", "value"])
