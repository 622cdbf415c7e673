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
    ties: Optional[str] = None,
    per_query: bool = True,
) -> Dict[str, Dict[str, Any]]:
    """``{name: {"run_id", "per_query": {qid: {measure: value}}, "summary": {measure: value}}}``
    (``"per_query"`` only when ``per_query``)."""

def trec_measure_names(measures: Optional[Sequence[str]] = None) -> List[str]:
    """The measure names ``trec_evaluate`` outputs, in trec_eval's order."""

# align and rank (issue 16 items 2, 3)
def align_evaluate(
    pairs: List[Dict[str, Any]],
    *,
    profile: Optional[str] = None,
    mode: Optional[str] = None,
    threshold: Optional[float] = None,
    beta: Optional[float] = None,
    best_threshold: Optional[bool] = None,
    macro_harmonic: Optional[bool] = None,
    expected_pairs: Optional[int] = None,
    collect_labels: Optional[bool] = None,
    per_item: Optional[bool] = None,
) -> Tuple[str, List[str], Optional[str], "ScoreTable"]:
    """``(json, warnings, labels, table)``: ``kgeval align --format json``'s document, the
    warnings as printed lines, the judged correspondences as TSV when ``collect_labels``, the
    per-item score table."""

def rank_evaluate(
    pairs: List[Dict[str, Any]],
    *,
    profile: Optional[str] = None,
    system: Optional[str] = None,
    ties: Optional[str] = None,
    tau: Optional[float] = None,
    ks: Optional[List[int]] = None,
    nil: Optional[str] = None,
    pool_size: Optional[int] = None,
    allow_missing: Optional[bool] = None,
    repair: Optional[bool] = None,
    sweep_tau: Optional[bool] = None,
    tau_grid: Optional[List[float]] = None,
    threshold: Optional[float] = None,
    block_size: Optional[int] = None,
    beta: Optional[float] = None,
    per_item: Optional[bool] = None,
) -> Tuple[str, List[str], "ScoreTable"]:
    """``(json, warnings, table)``: ``kgeval rank --format json``'s document, the warnings as
    printed lines and the per-item score table."""

# qald, lexicon, compare (issue 16 items 5, 6)

class ScoreTable:
    """A family's per-item score table (``Evaluation.table``), what ``compare`` takes."""

    @property
    def systems(self) -> List[str]: ...
    @property
    def metrics(self) -> List[str]: ...
    def rows(self) -> List[Tuple[str, str, str, float]]:
        """Every per-item value as ``(system, item, metric, value)``."""

def qald_evaluate(
    gold: Any,
    systems: List[Tuple[Optional[str], Any]],
    *,
    rule: Optional[str] = None,
    language: Optional[str] = None,
    data: Optional[Sequence[Any]] = None,
    endpoint: Optional[str] = None,
    timeout: Optional[float] = None,
    gold_from_queries: Optional[bool] = None,
    labels: Any = None,
    normalisation: Optional[Sequence[Tuple[str, bool]]] = None,
    per_item: bool = False,
) -> Tuple[str, ScoreTable]:
    """``(kgeval qald --format json's text, the score table)``; inputs are paths or bytes."""

def lexicon_evaluate(
    gold: Any,
    uris: Any,
    systems: List[Tuple[Optional[str], Any]],
    *,
    mode: Optional[str] = None,
    base_iri: Optional[str] = None,
    per_item: bool = False,
) -> Tuple[str, ScoreTable]:
    """``(kgeval lexicon --format json's text, the score table)``; inputs are paths or bytes."""

def compare(
    inputs: List[Tuple[Optional[str], Any]],
    against: List[Tuple[Optional[str], Any]],
    *,
    metrics: Optional[Sequence[str]] = None,
    metric: str = "score",
    test: Optional[str] = None,
    correction: Optional[str] = None,
    alpha: Optional[float] = None,
    iterations: Optional[int] = None,
    seed: Optional[int] = None,
    intervals: Optional[bool] = None,
    tau: Optional[str] = None,
    rbo_p: Optional[float] = None,
    missing: Optional[str] = None,
    input_format: Optional[str] = None,
    qrels: Any = None,
    runs: Optional[List[Tuple[Optional[str], Any]]] = None,
    sensitivity: Optional[bool] = None,
    ratios: Optional[Sequence[float]] = None,
    repeats: Optional[int] = None,
    subsets: Any = None,
) -> Tuple[str, str, str]:
    """``kgeval compare --format json``'s text; inputs are paths, ``ScoreTable``s or
    ``{item: {metric: value}}`` / ``{item: value}`` dicts."""

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
        ties: Optional[str] = None,
        judged_only: bool = False,
    ) -> None: ...
    def evaluate(self, run: Any) -> Dict[str, Dict[str, float]]:
        """``{qid: {measure: value}}`` for the topics in both the run and the qrels."""
# kgc

def kgc_evaluate(scores: Any, options: Dict[str, Any]) -> Tuple[str, "ScoreTable"]:
def kgc_mapped(
    test: Any, filters: List[Any], head_scores: Any, tail_scores: Any, options: Dict[str, Any]
) -> Tuple[List[Tuple[str, float]], List[Tuple[str, str]]]: ...
    """``kgeval kgc --format json`` (and the per-item score table) of a 2-D float numpy array (borrowed), a ``.npy`` path, or
    ``None`` (ranks or a run among the options)."""

class KgcEvaluator:
    """A KGC evaluation fed a score matrix block by block."""

    def __init__(self, options: Dict[str, Any]) -> None: ...
    def add_batch(self, first_row: int, block: Any) -> None: ...
    def finalize(self) -> Tuple[str, "ScoreTable"]: ...
    @property
    def rows(self) -> int: ...
    @property
    def columns(self) -> int: ...
    @property
    def given_rows(self) -> int: ...

def run_campaign(manifest: str, out: str, *, precision: Optional[int] = None) -> Tuple[str, List[Tuple[str, str]]]: ...
def arrow_column_names(kind: str, columns: Sequence[str], what: str) -> Tuple[str, str, str]:
    """The query id, document id and score (``kind="run"``) or relevance (``"qrels"``) column
    names among ``columns``, as the Arrow reader picks them."""
