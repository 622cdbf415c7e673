"""Partitioned trec_eval evaluation: :func:`accumulate` evaluates one partition of a run (any
subset of its topics) to a mergeable :class:`Accumulator`; accumulators merge in any order
(bit for bit), travel as bytes (``to_bytes`` / ``from_bytes``, also pickle) and finalise to
:func:`kgeval.trec.evaluate`'s summary and trec_eval's text.

By default an accumulator keeps every topic's values, so the finalised summary is the
one-machine :func:`~kgeval.trec.evaluate`'s (trec_eval's sequential sum in qid order) byte for
byte. ``accumulate(..., keep_topics=False)`` gives a compact accumulator (exact sums only)
whose summary is the correctly rounded exact mean: equal to 1e-12, the text differing only
where a value sits on a 4th-decimal rounding boundary (see docs/trec.md, "Partitioned
evaluation").
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Tuple

from kgeval import _inputs
from kgeval._kgeval import InvalidInput, TrecAccumulator, trec_accumulate


class Accumulator:
    """One run's summary state over the partitions merged into it."""

    __slots__ = ("_native",)

    def __init__(self, native: TrecAccumulator) -> None:
        self._native = native

    def merge(self, other: "Accumulator") -> "Accumulator":
        """Adds ``other``'s partitions in place and returns ``self``. A topic in both raises
        :class:`kgeval.InvalidInput` (it is never counted twice), as do other measures or
        options."""
        if not isinstance(other, Accumulator):
            raise InvalidInput(f"other: found {type(other).__name__}, expected a kgeval.trec.Accumulator")
        self._native.merge(other._native)
        return self

    @classmethod
    def merge_all(cls, accumulators: Iterable["Accumulator"]) -> "Accumulator":
        """A new accumulator holding every one of ``accumulators`` (none changed)."""
        items = list(accumulators)
        if not items:
            raise InvalidInput("accumulators: found none, expected at least one")
        merged = cls.from_bytes(items[0].to_bytes())
        for item in items[1:]:
            merged.merge(item)
        return merged

    def to_bytes(self) -> bytes:
        """The canonical bytes: equal accumulators give equal bytes (layout: docs/ARCHITECTURE.md)."""
        return bytes(self._native.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes) -> "Accumulator":
        """Reads :meth:`to_bytes`' layout; other bytes raise :class:`kgeval.InvalidInput`."""
        return cls(TrecAccumulator.from_bytes(bytes(data)))

    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]:
        return (Accumulator.from_bytes, (self.to_bytes(),))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Accumulator) and self._native == other._native

    __hash__ = None  # type: ignore[assignment]

    @property
    def topics(self) -> int:
        """The evaluated topics merged so far."""
        return self._native.topics

    @property
    def complete(self) -> bool:
        """Whether :meth:`finalize` adds the qrels topics missing from every partition
        (``complete=True``, trec_eval's ``-c``)."""
        return self._native.complete

    def finalize(self, qrels: Any = None) -> Dict[str, float]:
        """``{measure: value}``, as ``evaluate(..., per_query=False)``. ``qrels`` are needed
        under ``complete=True`` (the qrels topics missing from every partition are added)."""
        return self._finalized(qrels)[0]

    def text(self, qrels: Any = None) -> str:
        """trec_eval's summary lines (``runid`` first), as ``kgeval trec`` prints them."""
        return self._finalized(qrels)[1]

    def absent_topics(self, qrels: Any) -> Dict[str, Dict[str, float]]:
        """``{qid: {measure: value}}`` of the topics :meth:`finalize` adds under
        ``complete=True``: the qrels topics that no merged partition holds, with the values
        :func:`kgeval.trec.evaluate` gives a judged topic the run does not retrieve; ``{}``
        without ``complete``. The partitions' own rows (``accumulate(..., per_query=True)``)
        and these are the one-machine per-query rows."""
        return dict(self._native.absent_topics(_inputs.qrels(qrels)))

    def _finalized(self, qrels: Any) -> "Tuple[Dict[str, float], str]":
        summary, text = self._native.finalize(None if qrels is None else _inputs.qrels(qrels))
        return dict(summary), text

    def __repr__(self) -> str:
        return f"kgeval.trec.Accumulator(topics={self.topics}, measures={self._native.measures!r})"


def accumulate(
    qrels: Any,
    run: Any,
    measures: "str | Iterable[str] | None" = None,
    *,
    tie_break: Optional[str] = None,
    ties: Optional[str] = None,
    per_query: bool = False,
    keep_topics: Optional[bool] = None,
    complete: Optional[bool] = None,
    relevance_level: Optional[int] = None,
    ndcg_uses_level: Optional[bool] = None,
    max_docs: Optional[int] = None,
) -> "Accumulator | Tuple[Dict[str, Dict[str, float]], Accumulator]":
    """Evaluates one partition of ``run`` (any subset of its topics, each topic whole) against
    ``qrels``, with :func:`kgeval.trec.evaluate`'s arguments (paths, dicts, data frames or
    Arrow objects such as a Spark partition's record batches: :mod:`kgeval.spark`). Returns its :class:`Accumulator`;
    with ``per_query=True`` also the partition's ``{qid: {measure: value}}`` first.
    ``qrels`` may be the whole qrels or the partition's share (the judgments of its topics);
    either side may hold no row: a partition of topics only the run holds, of topics only the
    qrels judge, or of none. Which topics count is decided when the merged accumulator is
    finalised, as :func:`kgeval.trec.evaluate` decides it: the run's topics that the qrels
    judge, and under ``complete=True`` every qrels topic, those missing from every partition
    added once by :meth:`Accumulator.finalize` (their rows: :meth:`Accumulator.absent_topics`).

    The accumulator keeps every topic's values (one float per topic and measure; the
    default): the merged summary is then summed in qid order as one machine sums it —
    :func:`evaluate`'s values and trec_eval's text byte for byte. ``keep_topics=False`` holds
    exact sums only (constant size per measure), finalised to the correctly rounded exact
    mean. A merge keeps the topics only when both sides kept them."""
    rows, native = trec_accumulate(
        _inputs.qrels(qrels),
        _inputs.run(run),
        _inputs.measures(measures),
        complete=complete,
        level=relevance_level,
        ndcg_level=ndcg_uses_level,
        max_docs=max_docs,
        tie_break=tie_break,
        ties=ties,
        per_query=per_query,
        keep_topics=None if keep_topics is None else bool(keep_topics),
    )
    accumulator = Accumulator(native)
    return (rows, accumulator) if per_query else accumulator
