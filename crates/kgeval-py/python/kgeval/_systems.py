"""Systems as the qald and lexicon front ends take them: one submission, a mapping
``{name: submission}`` or a list of submissions / ``(name, submission)`` pairs."""

from __future__ import annotations

import os
from typing import Any, Callable, List, Mapping, Optional, Tuple


def systems(value: Any, is_one: Callable[[Any], bool], encode: Callable[[Any], Any]) -> List[Tuple[Optional[str], Any]]:
    """``[(name or None, path or bytes)]``; ``is_one`` tells a single in-memory submission
    (e.g. a QALD dict) from a mapping of names, ``encode`` turns one into a path or bytes."""
    if isinstance(value, (str, bytes, os.PathLike)) or is_one(value):
        return [(None, encode(value))]
    if isinstance(value, Mapping):
        return [(str(name), encode(one)) for name, one in value.items()]
    out: List[Tuple[Optional[str], Any]] = []
    for one in value:
        if isinstance(one, tuple) and len(one) == 2 and isinstance(one[0], str):
            out.append((one[0], encode(one[1])))
        else:
            out.append((None, encode(one)))
    return out
