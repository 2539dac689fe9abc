"""Results files a newcomer gets wrong, with the exact answer every entry point gives.

The parser decides each message once; ``manage.py analyze``, the web upload and the API
upload each have a test that sends these files and asserts these messages.
Algorithm and dataset names match the upload tests' benchmarks (datasets d1, d2).
"""

from __future__ import annotations

from typing import NamedTuple


class Problem(NamedTuple):
    line: int
    field: str | None
    message: str

    def printed(self) -> str:
        """As the CLI prints it and the web page's error summary lists it."""
        if self.field is None:
            return f"line {self.line}: {self.message}"
        return f'line {self.line}, column "{self.field}": {self.message}'


LONG_LAYOUT = "dataset,algorithm,score[,fold][,metric]"

# A typo in a long header: once read as a wide file with 2,348 errors, one per row.
HEADER_TYPO = ("dataset,algoritm,score\n" + "d1,RandomForest,0.9\nd2,SVM,0.8\n" * 1174).encode()
HEADER_TYPO_PROBLEMS = [
    Problem(
        1,
        "algoritm",
        f"unknown column; did you mean 'algorithm'? long files have {LONG_LAYOUT} "
        "(if it is a wide file with an algorithm named 'algoritm', choose the wide format)",
    )
]

# As European Excel saves CSV: a byte-order mark, ';' between fields, decimal commas.
SEMICOLON = "\ufeffdataset;algorithm;score\r\nd1;alg-a;0,9\r\nd2;alg-a;0,8\r\n".encode()
SEMICOLON_SCORES = [("alg-a", "d1", 0.9), ("alg-a", "d2", 0.8)]

# A decimal comma in a comma-separated file (quoted, so the row still has three fields).
DECIMAL_COMMA = b'dataset,algorithm,score\nd1,alg-a,"0,9"\nd2,alg-a,0.8\n'
DECIMAL_COMMA_PROBLEMS = [
    Problem(
        2,
        "score",
        "'0,9' is not a number (a decimal comma is read only in files with ';' between "
        "fields: write 0.9, or save the file with semicolons)",
    )
]

# One algorithm lacks one fold on one dataset.
FOLD_GAP = (
    b"dataset,algorithm,fold,score\n"
    b"d1,alg-a,0,0.9\nd1,alg-a,1,0.8\nd1,alg-b,0,0.5\n"  # line 4: alg-b lacks fold 1 on d1
    b"d2,alg-a,0,0.4\nd2,alg-b,0,0.6\n"
)
FOLD_GAP_PROBLEMS = [
    Problem(
        4,
        "fold",
        'algorithm "alg-b" on dataset "d1" lacks fold 1, which other algorithms have there: '
        "every algorithm of a dataset needs the same folds; add the missing rows, or leave "
        "out this algorithm's rows for this dataset",
    )
]

EXPECTED_LAYOUTS = (
    "expected dataset,algorithm,score[,fold][,metric] (long), dataset,algorithm,rank "
    "(ranking) or dataset,<algorithm 1>,<algorithm 2>,... (wide)"
)

# A file with nothing in it (zero bytes): the parser's message, not the form field's.
EMPTY = b""
EMPTY_PROBLEMS = [Problem(1, None, f"the file is empty: it needs a header row; {EXPECTED_LAYOUTS}")]

# A header and no rows (a template saved before it was filled in).
HEADER_ONLY = b"dataset,algorithm,score\r\n"
HEADER_ONLY_PROBLEMS = [
    Problem(1, None, "the file has a header but no data rows: add one row per result below it")
]

# Tab-separated, as a spreadsheet's "text" export: named, with the way out.
TABS = b"dataset\talgorithm\tscore\nd1\talg-a\t0.9\nd2\talg-a\t0.8\n"
TABS_PROBLEMS = [
    Problem(
        1,
        None,
        "the fields of the header are separated by tabs: save the file as CSV, with commas "
        f"or semicolons between fields; {EXPECTED_LAYOUTS}",
    )
]

# ';' between fields and a decimal comma inside quotes (as LibreOffice quotes text cells).
SEMICOLON_QUOTED = b'dataset;algorithm;score\nd1;alg-a;"0,9"\nd2;alg-a;"0,8"\n'

# Every refused file above, for the parametrised tests of each entry point.
REFUSED = {
    "header-typo": (HEADER_TYPO, HEADER_TYPO_PROBLEMS),
    "decimal-comma": (DECIMAL_COMMA, DECIMAL_COMMA_PROBLEMS),
    "fold-gap": (FOLD_GAP, FOLD_GAP_PROBLEMS),
    "empty": (EMPTY, EMPTY_PROBLEMS),
    "header-only": (HEADER_ONLY, HEADER_ONLY_PROBLEMS),
    "tabs": (TABS, TABS_PROBLEMS),
}
