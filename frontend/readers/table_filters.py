"""The reader's table: filters by algorithm metadata, search within the board, and the
columns a reader chooses, all kept in the page's URL (``q``, ``family``, ``licence``,
``precision``, ``open_weights`` (``yes`` / ``no``), ``size_min``, ``size_max``, ``cols``,
one ``ds`` per chosen dataset, at most
``MAX_DATASET_COLUMNS``) and applied on the server.

A filter **hides rows of the full analysis**: positions, P(win), intervals and ranks stay
those computed over every algorithm; the subset is not ranked again (a re-ranked subset
would be a different analysis, with its own intervals, and is not offered). The page says
so above the table.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from frontend.readers.presenters import Column
from leaderboard.ingest.results_csv import parameter_count

# The columns a reader may hide or show (the position, rank interval, name, P(win) and its
# interval are always there), and the metadata columns shown only when chosen.
OPTIONAL_COLUMNS = (
    "p_best",
    "win_rate",
    "mean_score",
    "mean_rank",
    "significance_rank",
    "borda",
    "plackett_luce",
    "group",
)
METADATA_COLUMNS: tuple[Column, ...] = (
    Column(
        "family",
        "Family",
        "Family or type, as the submitter gave it",
        numeric=False,
        sortable=False,
    ),
    Column("parameters", "Parameters", "Parameter count", sortable=False),
    Column("licence", "Licence", numeric=False, sortable=False),
    Column(
        "precision",
        "Precision",
        "Numeric precision of the weights evaluated (bfloat16, 8bit, ...)",
        numeric=False,
        sortable=False,
    ),
    Column(
        "open_weights",
        "Open weights",
        "Whether the model's weights are published",
        numeric=False,
        sortable=False,
    ),
)
# The open_weights filter's values, as the URL writes them.
OPEN_WEIGHTS_VALUES = {"yes": True, "no": False}
CHOOSABLE = (*OPTIONAL_COLUMNS, *(c.key for c in METADATA_COLUMNS))
MAX_QUERY_LENGTH = 100
# Per-dataset columns a reader may add: each is a column on every row of the table (and a
# query of its scores), and a phone shows them in the row's details.
MAX_DATASET_COLUMNS = 6


@dataclass(frozen=True)
class AlgorithmFacts:
    """What the filters and metadata columns read of an algorithm (its public metadata)."""

    family: str = ""
    parameters: int | None = None
    licence: str = ""
    precision: str = ""
    open_weights: bool | None = None  # None: not said


def metadata_given(facts: Iterable[AlgorithmFacts]) -> frozenset[str]:
    """The metadata columns some algorithm has a value for (the others are not offered)."""
    given: set[str] = set()
    keys = [c.key for c in METADATA_COLUMNS]
    for fact in facts:
        given.update(key for key in keys if getattr(fact, key) not in ("", None))
    return frozenset(given)


def parse_size(text: str) -> int | None:
    """A parameter count as people write it: ``350M``, ``7B``, ``1.5b``, ``120000`` (the
    rule the importers and the CSV upload read counts by)."""
    return parameter_count(text)


@dataclass(frozen=True)
class TableFilter:
    query: str = ""
    family: str = ""
    licence: str = ""
    precision: str = ""
    open_weights: bool | None = None  # None: either
    size_min: int | None = None
    size_max: int | None = None
    columns: tuple[str, ...] | None = None  # None: the default columns
    datasets: tuple[str, ...] = ()  # chosen datasets, a score column each (in this order)
    problems: tuple[str, ...] = ()  # parameters that could not be read (ignored)

    @property
    def size_min_text(self) -> str:
        return "" if self.size_min is None else size_text(self.size_min)

    @property
    def size_max_text(self) -> str:
        return "" if self.size_max is None else size_text(self.size_max)

    @property
    def open_weights_text(self) -> str:
        """``yes``, ``no``, or "" for either (the filter's value in the URL and form)."""
        return {True: "yes", False: "no", None: ""}[self.open_weights]

    @property
    def active(self) -> bool:
        return bool(
            self.query
            or self.family
            or self.licence
            or self.precision
            or self.open_weights is not None
            or self.size_min is not None
            or self.size_max is not None
        )

    def url_query(self) -> dict[str, str | tuple[str, ...]]:
        """The filter as query parameters, for every link of the table."""
        out: dict[str, str | tuple[str, ...]] = {}
        if self.query:
            out["q"] = self.query
        if self.family:
            out["family"] = self.family
        if self.licence:
            out["licence"] = self.licence
        if self.precision:
            out["precision"] = self.precision
        if self.open_weights is not None:
            out["open_weights"] = self.open_weights_text
        if self.size_min is not None:
            out["size_min"] = size_text(self.size_min)
        if self.size_max is not None:
            out["size_max"] = size_text(self.size_max)
        if self.columns is not None:
            out["cols"] = ",".join(self.columns)
        if self.datasets:
            out["ds"] = self.datasets  # repeated: a dataset's name may hold any character
        return out

    def known_datasets(self, names: Collection[str]) -> TableFilter:
        """The filter with only the board's datasets kept (the others listed as problems)."""
        unknown = [name for name in self.datasets if name not in names]
        if not unknown:
            return self
        problem = f"no dataset {', '.join(unknown)[:80]} in these results (ignored)"
        return replace(
            self,
            datasets=tuple(name for name in self.datasets if name in names),
            problems=(*self.problems, problem),
        )

    def keeps(self, name: str, facts: AlgorithmFacts) -> bool:
        if self.query and self.query.casefold() not in name.casefold():
            return False
        if self.family and facts.family != self.family:
            return False
        if self.licence and facts.licence != self.licence:
            return False
        if self.precision and facts.precision != self.precision:
            return False
        if self.open_weights is not None and facts.open_weights is not self.open_weights:
            return False  # an algorithm that does not say is neither
        if self.size_min is not None or self.size_max is not None:
            if facts.parameters is None:
                return False
            if self.size_min is not None and facts.parameters < self.size_min:
                return False
            if self.size_max is not None and facts.parameters > self.size_max:
                return False
        return True

    def visible(self, names: Iterable[str], facts: Mapping[str, AlgorithmFacts]) -> set[str] | None:
        """The names the table shows, or None when nothing is filtered."""
        if not self.active:
            return None
        none = AlgorithmFacts()
        return {name for name in names if self.keeps(name, facts.get(name, none))}

    def shows(self, key: str) -> bool:
        if self.columns is None:
            return key in OPTIONAL_COLUMNS
        return key in self.columns


def table_filter_from(params: Mapping[str, str]) -> TableFilter:
    """The filter a page's query asks for; what cannot be read is ignored and listed."""
    problems = []
    query = " ".join((params.get("q") or "").split())[:MAX_QUERY_LENGTH]
    sizes: dict[str, int | None] = {}
    for name in ("size_min", "size_max"):
        raw = (params.get(name) or "").strip()
        sizes[name] = parse_size(raw) if raw else None
        if raw and sizes[name] is None:
            problems.append(f"{name}={raw[:20]!r} is not a parameter count (e.g. 350M, 7B)")
    columns = None
    if "cols" in params:
        # "cols=a,b" in a link, or one "cols" per ticked box from the form (QueryDict)
        given = params.getlist("cols") if hasattr(params, "getlist") else [params["cols"]]
        asked = [c for value in given for c in (value or "").split(",") if c]
        unknown = [c for c in asked if c not in CHOOSABLE]
        if unknown:
            problems.append(f"unknown columns {', '.join(unknown)[:80]} (ignored)")
        columns = tuple(c for c in CHOOSABLE if c in asked)
    datasets = _datasets_from(params, problems)
    open_weights = (params.get("open_weights") or "").strip().lower()
    if open_weights and open_weights not in OPEN_WEIGHTS_VALUES:
        problems.append(f"open_weights={open_weights[:20]!r} is neither yes nor no (ignored)")
    return TableFilter(
        query=query,
        family=(params.get("family") or "").strip()[:100],
        licence=(params.get("licence") or "").strip()[:100],
        precision=(params.get("precision") or "").strip()[:30],
        open_weights=OPEN_WEIGHTS_VALUES.get(open_weights),
        size_min=sizes["size_min"],
        size_max=sizes["size_max"],
        columns=columns,
        datasets=datasets,
        problems=tuple(problems),
    )


def _datasets_from(params: Mapping[str, str], problems: list[str]) -> tuple[str, ...]:
    """The chosen datasets, once each, in order; beyond ``MAX_DATASET_COLUMNS`` refused
    (the first ones kept) with a problem saying so."""
    given = params.getlist("ds") if hasattr(params, "getlist") else [params.get("ds") or ""]
    # read only what could be kept: a URL of thousands of ds costs no more than a few
    asked = list(dict.fromkeys(name.strip()[:200] for name in given[:100] if name.strip()))
    if len(asked) > MAX_DATASET_COLUMNS:
        problems.append(
            f"at most {MAX_DATASET_COLUMNS} dataset columns: the first {MAX_DATASET_COLUMNS} "
            f"of the {len(asked)}{'+' if len(given) > 100 else ''} chosen are shown"
        )
    return tuple(asked[:MAX_DATASET_COLUMNS])


def size_text(count: int) -> str:
    """A parameter count as typed, exactly (``300M``, ``7B``; digits when it is not round)."""
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "k")):
        if count >= size and count % size == 0:
            return f"{count // size}{suffix}"
    return str(count)


def parameter_text(count: int | None) -> str:
    if count is None:
        return "–"
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "k")):
        if count >= size:
            return f"{count / size:.3g}{suffix}"
    return str(count)
