"""kgeval: exact, convention-explicit evaluation of knowledge-graph systems, in Python.

One module per family, each a thin front end over the Rust facade (every default, convention
and metric lives there, shared with the ``kgeval`` command line):

- :mod:`kgeval.trec` — trec_eval's measures; ``import kgeval.trec as pytrec_eval`` works.
- :mod:`kgeval.qald`, :mod:`kgeval.lexicon` — QALD question answering, lexicalization.
- :func:`kgeval.compare` — significance, leaderboards, ranking agreement over any family.
- :func:`kgeval.run` — a whole campaign into a report folder, as ``kgeval run``.
- :mod:`kgeval.kgc` — knowledge-graph completion over numpy score matrices (no copy), batch by
  batch, with PyKEEN's metric names.

Errors raise :class:`kgeval.Error` subclasses: :class:`ParseError` (malformed input, with
``.path``, ``.line``, ``.column``), :class:`ReadError` (a file that cannot be read, with
``.path``) and :class:`InvalidInput` (an option or an input that cannot be evaluated).
"""

from kgeval._kgeval import Error, InvalidInput, ParseError, ReadError, __version__
from kgeval import trec

__all__ = ["Error", "InvalidInput", "ParseError", "ReadError", "trec", "__version__"]
# align and rank (issue 16 items 2, 3): kgeval.align (OntoAligner / MELT alignments),
# kgeval.rank (local ranking with NIL: DISO Task 2, Bio-ML, DeepOnto).
from kgeval import align, rank  # noqa: E402

__all__ += ["align", "rank"]

# qald, lexicon, compare (issue 16 items 5, 6)
from kgeval import lexicon, qald
from kgeval._compare import compare
from kgeval._run import run
from kgeval._evaluation import Evaluation
from kgeval._kgeval import ScoreTable

__all__ += ["compare", "lexicon", "qald", "run", "Evaluation", "ScoreTable"]

# kgc (issue 16 item 4)
from kgeval import kgc  # noqa: E402

__all__ += ["kgc"]
