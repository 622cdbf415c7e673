"""Sharded KGC evaluation: :class:`RankAccumulator` takes, per batch of answers, the counts of
candidates scoring strictly above and tying with each answer after filtering (computed by
your model on its device) or a score block kgeval counts itself (numpy or any DLPack array,
float16/32/64, on the CPU with rayon); accumulators of several processes or hosts merge and
finalise to the metrics of :func:`kgeval.kgc.evaluate` under every tie policy.

Answers are identified by integer ids of your choosing (e.g. ``side * n_test + i`` for test
triple ``i``). **Counts given for one id are summed**: a worker holding a slice of the
candidate entities (a column shard) adds its counts for the same ids as the other slices, and
the rank is formed from the sums at :meth:`RankAccumulator.finalize`; workers holding other
questions (row shards) add other ids.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Tuple

from kgeval._kgeval import InvalidInput, KgcRankAccumulator

_CPU = 1  # DLPack's kDLCPU


def _numpy(value: Any, what: str) -> Any:
    """``value`` as a numpy array: numpy as is, a DLPack array (torch, JAX, CuPy on the CPU)
    through ``numpy.from_dlpack``, anything else through ``numpy.asarray``."""
    import numpy

    if isinstance(value, numpy.ndarray):
        return value
    if hasattr(value, "__dlpack__"):
        device = value.__dlpack_device__()[0] if hasattr(value, "__dlpack_device__") else _CPU
        if device != _CPU:
            if hasattr(value, "cpu"):
                value = value.cpu()
            else:
                raise InvalidInput(f"{what}: found an array on DLPack device {device}, expected CPU memory")
        if hasattr(value, "detach"):
            value = value.detach()
        try:
            return numpy.from_dlpack(value)
        except Exception as error:  # noqa: BLE001 - a bad input, whatever numpy says
            raise InvalidInput(f"{what}: found a DLPack array numpy cannot read ({error})") from None
    try:
        return numpy.asarray(value)
    except Exception as error:  # noqa: BLE001
        raise InvalidInput(f"{what}: found {type(value).__name__}, expected an array ({error})") from None


def _ints(value: Any, what: str, n: Optional[int] = None) -> Any:
    """A 1-D integer array as C-order int64."""
    import numpy

    array = _numpy(value, what)
    if array.ndim != 1:
        raise InvalidInput(f"{what}: found shape {array.shape}, expected a 1-D array (one value per answer)")
    if array.dtype.kind not in "iu":
        raise InvalidInput(f"{what}: found dtype {array.dtype}, expected an integer dtype")
    if array.dtype.kind == "u" and array.size and int(array.max()) > numpy.iinfo(numpy.int64).max:
        raise InvalidInput(f"{what}: found a value above int64's range")
    if n is not None and array.shape[0] != n:
        raise InvalidInput(f"{what}: found {array.shape[0]} values, expected {n} (one per answer of question_ids)")
    return numpy.ascontiguousarray(array, dtype=numpy.int64)


class RankAccumulator:
    """Per-answer comparison counts summed over shards (see the module's text)."""

    __slots__ = ("_native",)

    def __init__(self) -> None:
        self._native = KgcRankAccumulator()

    @property
    def answers(self) -> int:
        """The distinct answer ids given so far."""
        return self._native.answers

    def add_counts(
        self,
        question_ids: Any,
        greater: Any,
        tied: Any,
        *,
        compared: Any = None,
        groups: Any = None,
    ) -> None:
        """Adds a batch of counts, one value per answer in each integer array:
        ``greater`` candidates scoring strictly above the answer, ``tied`` *other* candidates
        scoring the same (never the answer itself), after filtering; ``compared`` (optional)
        the candidates compared, for PyKEEN's adjusted metrics; ``groups`` (optional) the
        answer's aggregated question (or any macro key). Counts of an id given before are
        added to its counts."""
        ids = _ints(question_ids, "question_ids")
        n = ids.shape[0]
        self._native.add_counts(
            ids,
            _ints(greater, "greater", n),
            _ints(tied, "tied", n),
            None if compared is None else _ints(compared, "compared", n),
            None if groups is None else _ints(groups, "groups", n),
        )

    def add_scores(
        self,
        question_ids: Any,
        scores: Any,
        targets: Any,
        *,
        target_scores: Any = None,
        filter_mask: Any = None,
        groups: Any = None,
    ) -> None:
        """Adds a score block: row ``i`` scores this shard's candidates for answer
        ``question_ids[i]``, whose own score is column ``targets[i]`` of the block, or, when
        ``targets[i]`` is -1 (the answer's column is in another shard), ``target_scores[i]``.
        ``filter_mask`` (bool, the block's shape; ``True`` = not a candidate: the other known
        answers) filters; the target's own column is never counted. Scores compare exactly in
        the block's precision; a NaN raises :class:`kgeval.InvalidInput` and adds nothing."""
        import numpy

        ids = _ints(question_ids, "question_ids")
        n = ids.shape[0]
        block = _numpy(scores, "scores")
        if block.ndim != 2:
            raise InvalidInput(f"scores: found shape {block.shape}, expected a 2-D array (one row per answer)")
        if block.dtype.kind != "f" or block.dtype.itemsize not in (2, 4, 8):
            raise InvalidInput(f"scores: found dtype {block.dtype}, expected float16, float32 or float64")
        if block.shape[0] != n:
            raise InvalidInput(f"scores: found {block.shape[0]} rows, expected {n} (one per answer of question_ids)")
        block = numpy.ascontiguousarray(block, dtype=block.dtype.newbyteorder("="))
        mask = None
        if filter_mask is not None:
            mask = _numpy(filter_mask, "filter_mask")
            if mask.shape != block.shape:
                raise InvalidInput(f"filter_mask: found shape {mask.shape}, expected the scores' shape {block.shape}")
            if mask.dtype.kind != "b":
                raise InvalidInput(f"filter_mask: found dtype {mask.dtype}, expected bool (True: not a candidate)")
            mask = numpy.ascontiguousarray(mask)
        given = None
        if target_scores is not None:
            given = _numpy(target_scores, "target_scores")
            if given.shape != (n,) or given.dtype.kind not in "fiu":
                raise InvalidInput(
                    f"target_scores: found shape {given.shape} and dtype {given.dtype}, expected {n} numbers"
                )
            given = numpy.ascontiguousarray(given, dtype=numpy.float64)
        self._native.add_scores(
            ids,
            block,
            _ints(targets, "targets", n),
            given,
            mask,
            None if groups is None else _ints(groups, "groups", n),
        )

    def merge(self, other: "RankAccumulator") -> "RankAccumulator":
        """Adds ``other``'s answers in place (counts of shared ids summed) and returns ``self``."""
        if not isinstance(other, RankAccumulator):
            raise InvalidInput(f"other: found {type(other).__name__}, expected a kgeval.kgc.RankAccumulator")
        self._native.merge(other._native)
        return self

    @classmethod
    def merge_all(cls, accumulators: Iterable["RankAccumulator"]) -> "RankAccumulator":
        """A new accumulator holding every one of ``accumulators`` (none changed)."""
        merged = cls()
        for item in accumulators:
            merged.merge(item)
        return merged

    def to_bytes(self) -> bytes:
        """The canonical bytes: equal accumulators give equal bytes (layout: docs/ARCHITECTURE.md)."""
        return bytes(self._native.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes) -> "RankAccumulator":
        """Reads :meth:`to_bytes`' layout; other bytes raise :class:`kgeval.InvalidInput`."""
        accumulator = cls()
        accumulator._native = KgcRankAccumulator.from_bytes(bytes(data))
        return accumulator

    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]:
        return (RankAccumulator.from_bytes, (self.to_bytes(),))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RankAccumulator) and self._native == other._native

    __hash__ = None  # type: ignore[assignment]

    def finalize(
        self, k: "int | Iterable[int] | None" = None, ir_measures: "str | Iterable[str] | None" = None
    ) -> Dict[str, Dict[str, float]]:
        """``{policy: {metric: value}}`` for the policies ``optimistic``, ``pessimistic``,
        ``realistic``, ``expected`` and ``rounded-mean``, under the names of ``kgeval kgc``'s
        JSON: ``micro_mr``, ``micro_mrr``, ``micro_hits@k`` (``k`` default 1, 3, 5, 10), the
        adjusted ones when every answer's ``compared`` count is known, and with groups
        ``macro_*``, ``map_cut_20``, ``ndcg_cut_20`` (``ir_measures``) and
        ``macro_answer_mean_*``."""
        if isinstance(k, int):
            k = [k]
        if isinstance(ir_measures, str):
            ir_measures = [ir_measures]
        return {
            policy: dict(values)
            for policy, values in self._native.finalize(
                None if k is None else [int(x) for x in k], None if ir_measures is None else list(ir_measures)
            ).items()
        }

    def __repr__(self) -> str:
        return f"kgeval.kgc.RankAccumulator(answers={self.answers})"
