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
    per_query: bool = True,
) -> Dict[str, Dict[str, Any]]:
    """``{name: {"run_id", "per_query": {qid: {measure: value}}, "summary": {measure: value}}}``
    (``"per_query"`` only when ``per_query``)."""

def trec_measure_names(measures: Optional[Sequence[str]] = None) -> List[str]:
    """The measure names ``trec_evaluate`` outputs, in trec_eval's order."""

# trec (py-perf): qrels converted once
class TrecEvaluator:
    """Qrels held natively with the measures and options; ``evaluate(run)`` converts only the run."""

    def __init__(
        self,
        qrels: Any,
        measures: Optional[Sequence[str]] = None,
        *,
        level: Optional[int] = None,
        tie_break: Optional[str] = None,
    ) -> None: ...
    def evaluate(self, run: Any) -> Dict[str, Dict[str, float]]:
        """``{qid: {measure: value}}`` for the topics in both the run and the qrels."""
