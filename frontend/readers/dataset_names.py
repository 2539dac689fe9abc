"""A dataset's display name: the one definition the reader's pages use (the table's
dataset chooser and its dataset columns; leaderboard.js reads the names the server wrote
into the page, never a rule of its own).

A dataset's key is what the results files call it; many are raw ids, such as TabZilla's
``openml__Australian__146818`` or a bare OpenML id, which a reader cannot search by
name. Such a key is shown by the name it carries ("Australian", with "OpenML 146818"
beside it), or, when it carries none, by the dataset's description; any other key is its
own display name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# "<source>__<name>__<id>": the TabZilla / OpenML-suite way of naming a task.
_SOURCE_NAME_ID = re.compile(
    r"(?P<source>[A-Za-z][A-Za-z0-9]{0,19})__(?P<name>.+?)__(?P<id>\d{1,12})"
)
# A key that is only an id: digits, or a hash-like hex string.
_BARE_ID = re.compile(r"\d{1,12}|[0-9a-fA-F]{16,64}")
_SOURCES = {"openml": "OpenML", "uci": "UCI", "kaggle": "Kaggle", "pmlb": "PMLB"}
# The longest description shown as a name (its first sentence, or this many characters).
MAX_LABEL_LENGTH = 60


@dataclass(frozen=True)
class DatasetName:
    """``key`` as stored; ``label`` as shown; ``detail`` what tells it apart ("" if the
    label is the key)."""

    key: str
    label: str
    detail: str = ""


def is_bare_id(key: str) -> bool:
    """Whether ``key`` is only an id (then its description may name it)."""
    return _BARE_ID.fullmatch(key) is not None


def dataset_display_name(key: str, description: str = "") -> DatasetName:
    """How a dataset is shown to a reader; see the module's docstring."""
    if found := _SOURCE_NAME_ID.fullmatch(key):
        source = _SOURCES.get(found["source"].lower(), found["source"])
        return DatasetName(key, found["name"].replace("_", " "), f"{source} {found['id']}")
    if is_bare_id(key) and (label := _first_sentence(description)):
        return DatasetName(key, label, key)
    return DatasetName(key, key)


def _first_sentence(text: str) -> str:
    line = " ".join((text or "").split())
    sentence = re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0].rstrip(".")
    if len(sentence) > MAX_LABEL_LENGTH:
        sentence = sentence[: MAX_LABEL_LENGTH - 1].rstrip() + "…"
    return sentence
