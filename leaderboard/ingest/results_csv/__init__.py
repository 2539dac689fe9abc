"""Results CSV files: the one parser behind ``manage.py analyze`` and the web/API import.

Pure Python + numpy (no Django, DRF or Celery), so a researcher can run it on a laptop
and the import service can reuse it unchanged.

Formats
-------
Every file has a header row, is UTF-8 (a byte-order mark is allowed) and may quote
fields. Fields are separated by commas, or by semicolons as European spreadsheets save
CSV: ``;`` when it splits the header line into more fields than ``,`` does. Header names
are matched case-insensitively; whitespace around every field is stripped; blank lines
(and rows of empty fields) are skipped.

``long``
    ``dataset,algorithm,score[,fold][,metric]`` in any column order (``value`` may
    stand for ``score``). One row per result; a missing result is a missing row.
    Optional columns describe the algorithm (``ALGORITHM_COLUMNS``: ``url``,
    ``family``, ``parameters``, ``licence`` (or ``license``: ``COLUMN_ALIASES``),
    ``revision``): a row may leave them
    empty, but the rows of one algorithm may not disagree; ``parameters`` is a count as
    people write it (``1011781632``, ``7B``, ``350M``: :func:`parameter_count`).
``wide``
    ``dataset,<algorithm>,<algorithm>,...``: one row per dataset, an empty cell is a
    missing result. Algorithm names are the header cells as written.
``ranking``
    ``dataset,algorithm,rank``: given positions, 1 = best, possibly only the top K per
    dataset.

Auto-detection (``format=None``): ``dataset`` + ``algorithm`` + ``rank`` -> ranking;
``dataset`` + ``algorithm`` + ``score`` (or ``value``) -> long; otherwise ``dataset`` and
at least one other column -> wide. Long and ranking files may hold only their listed
columns; anything else is reported as an unexpected column. A header cell one typo from a
column name (``algoritm``, ``Datasets``; the rule of ``leaderboard.typo_guard``) gets
"did you mean 'algorithm'?", and the layout is the one the intended names declare: such
a header is never read as a wide file that fails on every row. Nor is a long file whose
columns have other names (``dataset,model,accuracy``): a detected wide file with a
column that holds no number in any row is refused with that one error.

Rules
-----
* Line numbers are those a text editor shows (header = line 1).
* All-or-nothing: every row is checked and all problems are raised together as one
  :class:`ResultsCsvError` (at most ``max_errors`` kept, with the total count). Reading
  stops at the first row or result beyond ``max_rows`` (a wide row holds one result per
  algorithm, so the cap counts scores, not lines) and at malformed CSV.
* Memory and time grow linearly with the file's size, whatever its content: the
  cross-row checks number only the labels and groups that occur.
* Names (datasets, algorithms, metrics) may not hold control characters (NUL, tab,
  newline, ...) nor invisible ones (bidi overrides such as U+202E, zero-width spaces,
  line separators, lone surrogates): each is reported with its line and column.
* Quoting is strict: a quote opened must be closed, and nothing (not even a space) may
  follow a closing quote; whitespace elsewhere around fields is ignored.
* Scores must be finite numbers written in ASCII; ``nan``, ``inf``, ``Infinity``,
  ``1e400``, ``0x10``, ``1_0`` and full-width or other non-ASCII digits are rejected.
  ``-0`` is stored as zero. A decimal comma (``1,5``) is read only in a file separated
  by semicolons, and such a file writes every number with one decimal mark (``1,5``
  beside ``1.234`` is refused: the point may be a thousands separator).
* A record (dataset, algorithm, fold, metric) may appear once; a repeat names the line
  of the first occurrence.
* Folds are non-negative integers, given on every row or on none. Within a dataset
  (and metric) every algorithm must have the same set of folds (or, with
  ``incomplete="drop"``, an algorithm lacking one has no result there); different
  datasets may have different folds (``fold_values`` is ``NaN``-padded). Fold labels are
  placed in ascending order, so labels ``1..5`` and ``0..4`` both fill fold slots
  ``0..4``.
* Ranks are positive numbers. On each dataset the listed ranks, sorted, must fill the
  positions ``1, 2, ..., k`` in order, where a tie of ``t`` algorithms occupying
  positions ``s..s+t-1`` is written as the mean position ``s + (t-1)/2`` for every
  member (two tied for first: ``1.5, 1.5``; three tied for second: ``3, 3, 3``).
  So ``1, 1`` is rejected (it must be ``1.5, 1.5``), as are gaps (``1, 3``) and a tie
  cut off at the end of a top-K list (a lone ``3.5``). Cross-row checks on folds and
  ranks run once every row is individually valid, so they never report a consequence
  of an earlier error.
"""

from common.text import control_character_problem
from leaderboard.ingest.results_csv.cells import parameter_count, plain_number
from leaderboard.ingest.results_csv.long_layout import RecordColumns
from leaderboard.ingest.results_csv.reading import (
    parse_results_columns,
    parse_results_csv,
    parse_results_csv_partial,
    parse_results_csv_text,
    parse_results_records,
)
from leaderboard.ingest.results_csv.records import (
    ALGORITHM_COLUMNS,
    FORMATS,
    INCOMPLETE,
    INCOMPLETE_FOLDS,
    RANKING_HEADER,
    UNRECOGNISED_COLUMNS,
    Format,
    Incomplete,
    ParsedResults,
    ResultsCsvError,
    RowError,
    ScoreRecord,
    flags_array,
)

__all__ = [
    "ALGORITHM_COLUMNS",
    "FORMATS",
    "INCOMPLETE",
    "INCOMPLETE_FOLDS",
    "RANKING_HEADER",
    "UNRECOGNISED_COLUMNS",
    "Format",
    "Incomplete",
    "ParsedResults",
    "RecordColumns",
    "ResultsCsvError",
    "RowError",
    "ScoreRecord",
    "control_character_problem",
    "flags_array",
    "parameter_count",
    "parse_results_columns",
    "parse_results_csv",
    "parse_results_csv_partial",
    "parse_results_csv_text",
    "parse_results_records",
    "plain_number",
]
