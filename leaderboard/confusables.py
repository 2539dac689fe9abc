"""Look-alike names: the Unicode confusable skeleton (UTS #39, section 4).

``bаse1`` (a Cyrillic а) and ``bᴀse1`` (a small capital) beside ``base1`` were accepted
as new algorithms (issue 26). Two names are confusable when their skeletons are equal:
skeleton(X) = NFD(map every character of NFD(X) to its prototype), taken here of
NFKC(X) as for identifiers (confusables.txt leaves out what NFKC folds: ｂ, １). The prototypes come
from Unicode's confusables.txt as the ``confusable_homoglyphs`` package ships it (a
table of both directions of each line: :func:`_classes` joins them into the classes
of characters with one prototype, so skeletons compare equal exactly when UTS #39's do).

UTS #39 skeletons are case-sensitive, and small capitals have prototypes that are not
Latin letters (ᴀ -> Cherokee ꭺ, whose capital Ꭺ -> A). A name with a character outside
ASCII is therefore also compared case-insensitively (the classes joined by case too), so ``bᴀse1`` looks like ``base1``; two ASCII names differing in case only
(``SVM``, ``svm``) are not refused: they do not deceive.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Iterable
from importlib import resources

_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


def _classes(*, fold_case: bool) -> dict[str, str]:
    """Each character's class representative under the confusable relation (and, with
    ``fold_case``, case folding too): a prototype sequence if the class has one (a
    prototype of several characters, as ``fi`` for ``ﬁ``), else its smallest character.

    confusables.txt maps each source character to its prototype, and a prototype is
    never a source, so its classes are stars; the package's table lists both directions
    of each line, and this union keeps them (equal skeletons, equal classes).
    """
    raw = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra == rb:
            return
        # A sequence wins (it is the prototype), then the smaller character.
        keep, drop = sorted((ra, rb), key=lambda n: (len(n) == 1, n))
        parent[drop] = keep

    for key, entries in raw.items():
        key = key.translate(_DIRECTION_MARKS)
        for entry in entries:
            other = entry["c"].translate(_DIRECTION_MARKS)
            if key and other and (len(key) == 1 or len(other) == 1):
                union(key, other)
    if fold_case:
        for char in list(parent):
            if len(char) == 1 and len(folded := char.casefold()) == 1 and folded != char:
                union(char, folded)
            if len(char) == 1 and len(upper := char.upper()) == 1 and upper != char:
                union(char, upper)
    return {node: find(node) for node in parent if len(node) == 1 and find(node) != node}


@functools.cache
def _prototypes() -> dict[str, str]:
    return _classes(fold_case=False)


@functools.cache
def _case_blind() -> dict[str, str]:
    return _classes(fold_case=True)


def _mapped(text: str, classes: dict[str, str]) -> str:
    # NFKC first, as for identifiers: confusables.txt leaves out what it folds (ｂ, １).
    key = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    for _ in range(3):  # a prototype sequence's own characters may map too
        following = unicodedata.normalize("NFD", "".join(classes.get(c, c) for c in key))
        if following == key:
            break
        key = following
    return key


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (up to which member stands for each class)."""
    return _mapped(text, _prototypes())


def _folded(text: str) -> str:
    """The skeleton blind to case: ``bᴀse1`` and ``base1`` have the same."""
    return _mapped(text.casefold(), _case_blind())


class LookAlikes:
    """The names a benchmark has, indexed by skeleton, to find a new name's look-alike."""

    def __init__(self, names: Iterable[str]):
        self.by_skeleton: dict[str, str] = {}
        self.by_folded: dict[str, str] = {}
        self.by_folded_unicode: dict[str, str] = {}
        for name in sorted(names):
            self.add(name)

    def add(self, name: str) -> None:
        self.by_skeleton.setdefault(skeleton(name), name)
        folded = _folded(name)
        self.by_folded.setdefault(folded, name)
        if not name.isascii():
            self.by_folded_unicode.setdefault(folded, name)

    def original(self, name: str) -> str | None:
        """The existing name ``name`` looks like (not itself), or None."""
        found = self.by_skeleton.get(skeleton(name))
        if found is None or found == name:
            folded = _folded(name)
            found = (self.by_folded if not name.isascii() else self.by_folded_unicode).get(folded)
        return None if found is None or found == name else found


def lookalike_message(kind: str, name: str, original: str) -> str:
    return (
        f"{kind} {name!r} looks like {original!r} (the same letters to a reader, in other "
        f"characters); use {original!r} if you mean it, or a name that looks different"
    )


def lookalikes_new(
    *, kind: str, names: Iterable[str], listed: Iterable[str]
) -> list[tuple[str, str]]:
    """(new name, the listed or earlier new name it looks like) for each look-alike among
    ``names`` that are not ``listed``; only public names are compared, so a refusal
    never tells of a pending one."""
    listed = set(listed)
    new = [name for name in dict.fromkeys(names) if isinstance(name, str) and name not in listed]
    if not new:
        return []  # most inputs name only listed names: no index to build
    index = LookAlikes(listed)
    found = []
    for name in new:
        original = index.original(name)
        if original is not None:
            found.append((name, original))
        else:
            index.add(name)  # two new look-alikes in one submission: the second is refused
    return found
