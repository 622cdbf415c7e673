"""Type stubs of the native module ``kgeval._kgeval`` (crates/kgeval-py/src)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

__version__: str

class Error(ValueError):
    """Every error kgeval raises (a ``ValueError``, as bad input is)."""

class ParseError(Error):
    """Malformed input at a place (1-based; 0 when unknown)."""

    path: str
    line: int
    column: int

class ReadError(Error):
    """An input file that cannot be opened or read."""

    path: str

class InvalidInput(Error):
    """An option or an input that cannot be evaluated."""

def trec_evaluate(
    qrels: Any,
    runs: List[Tuple[str, Any]],
    measures: Optional[Sequence[str]] = None,
    *,
    complete: Optional[bool] = None,
    level: Optional[int] = None,
    ndcg_level: Optional[bool] = None,
    max_docs: Optional[int] = None,
    tie_break: Optional[str] = None,
) -> Dict[str, Dict[str, Any]]:
    """``{name: {"run_id", "per_query": {qid: {measure: value}}, "summary": {measure: value}}}``."""

def trec_measure_names(measures: Optional[Sequence[str]] = None) -> List[str]:
    """The measure names ``trec_evaluate`` outputs, in trec_eval's order."""

# kgc

def kgc_evaluate(scores: Any, options: Dict[str, Any]) -> str:
    """``kgeval kgc --format json`` of a 2-D float numpy array (borrowed), a ``.npy`` path, or
    ``None`` (ranks or a run among the options)."""

class KgcEvaluator:
    """A KGC evaluation fed a score matrix block by block."""

    def __init__(self, options: Dict[str, Any]) -> None: ...
    def add_batch(self, first_row: int, block: Any) -> None: ...
    def finalize(self) -> str: ...
    @property
    def rows(self) -> int: ...
    @property
    def columns(self) -> int: ...
    @property
    def given_rows(self) -> int: ...
