"""Names that are probably typos of names a benchmark already has.

"task-3" for "task3", "Iris" for "iris", "irs" for "iris": a submission that names a
dataset (or algorithm, or metric) the benchmark lacks, but that is this close to one it
has, is almost always a typo, and storing it would silently split one dataset in two.
The services refuse such a name with a "did you mean ...?" (see
``leaderboard.services``); this module only decides what is close.

Two names are close when

* they are equal once case, whitespace and punctuation are ignored (``_normal``), or
* their normal forms are one edit apart (an insertion, deletion, or a swap of
  neighbours; a substitution only from ``MIN_SUBSTITUTION_LENGTH`` characters, since
  "svm"/"svr" or "lda"/"qda" are different things), both have at least
  ``MIN_EDIT_LENGTH`` characters, and they carry the same numbers: "task-03" and
  "task-04", "d1" and "d2", "resnet18" and "resnet50" are different things, not typos.

Algorithm names are matched up to case and punctuation only (``edits=False``): variants
such as "gpt4" and "gpt4o" or "resnet" and "resnext" are legitimately one edit apart.

Lookups are by hashing, never by comparing every pair: the normal forms go in a dict, and
every form's one-deletion variants in another (the symmetric-deletion scheme: two strings
one edit apart share a variant), so checking n new names against m known ones costs
O((n + m) L) for names of length L. Pure Python, no Django.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

MIN_EDIT_LENGTH = 3
MIN_SUBSTITUTION_LENGTH = 5
# Variants are indexed for names up to this long (normal form); longer names are only
# matched up to case and punctuation, which bounds the index at ~64 entries per name.
MAX_EDIT_LENGTH = 64

_NOT_ALNUM = re.compile(r"[\W_]+", re.UNICODE)
_NUMBERS = re.compile(r"\d+")


def _normal(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _NOT_ALNUM.sub("", folded)


def spelling_key(name: str) -> str:
    """``name`` up to case, width and punctuation: two names with one key are one name
    spelt two ways ("ux-bad", "UX_Bad")."""
    return _normal(name)


def _numbers(normal: str) -> tuple[int, ...]:
    return tuple(int(n) for n in _NUMBERS.findall(normal))


def _deletions(normal: str) -> set[str]:
    return {normal[:i] + normal[i + 1 :] for i in range(len(normal))}


def _one_edit(a: str, b: str) -> bool:
    """True if ``a`` and ``b`` are exactly one edit apart (Damerau: swaps count as one)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return len(a) >= MIN_SUBSTITUTION_LENGTH
        i, j = diff[0], diff[-1]
        return len(diff) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


@dataclass
class NameIndex:
    """The names a benchmark has, indexed for :meth:`suggest`.

    The index is built at the first suggestion: most inputs name only known names, and
    membership needs none."""

    names: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> NameIndex:
        return cls(names=frozenset(names))

    @cached_property
    def _index(self) -> tuple[dict[str, str], dict[str, list[str]]]:
        """Each name by its normal form, and by each of its one-deletion variants."""
        by_normal: dict[str, str] = {}
        by_deletion: dict[str, list[str]] = {}
        for name in sorted(self.names):
            normal = _normal(name)
            by_normal.setdefault(normal, name)
            if MIN_EDIT_LENGTH <= len(normal) <= MAX_EDIT_LENGTH:
                for variant in _deletions(normal) | {normal}:
                    by_deletion.setdefault(variant, []).append(name)
        return by_normal, by_deletion

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def suggest(self, name: str, *, edits: bool = True) -> str | None:
        """The known name ``name`` is probably a typo of, or None (also when it is known).

        ``edits=False`` matches up to case and punctuation only.
        """
        if name in self:
            return None
        by_normal, by_deletion = self._index
        normal = _normal(name)
        same = by_normal.get(normal)
        if same is not None:
            return same
        if not edits or not MIN_EDIT_LENGTH <= len(normal) <= MAX_EDIT_LENGTH:
            return None
        numbers = _numbers(normal)
        candidates: list[str] = []
        for variant in _deletions(normal) | {normal}:
            candidates.extend(by_deletion.get(variant, ()))
        close = sorted(
            {
                known
                for known in candidates
                if _numbers(_normal(known)) == numbers and _one_edit(normal, _normal(known))
            }
        )
        return close[0] if close else None


def did_you_mean(name: str, known: NameIndex) -> str:
    """`` did you mean 'x'?`` when ``name`` is close to a known name, else ``""``."""
    suggestion = known.suggest(name)
    return f"; did you mean {suggestion!r}?" if suggestion is not None else ""
