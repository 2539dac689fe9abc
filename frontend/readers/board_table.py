"""The leaderboard table's parts that depend on the request: the columns the reader
chose (metadata and per-dataset scores), the header cells and their sort links, the
estimator switcher, and the filter form. Typed (frozen dataclasses) for the template;
``frontend/readers/views.py`` puts them together."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from frontend.readers.board_view import BoardView, EstimatorChoice
from frontend.readers.dataset_names import DatasetName, dataset_display_name
from frontend.readers.presenters import COLUMNS, Column, number_text, score_digits
from frontend.readers.table_filters import (
    CHOOSABLE,
    METADATA_COLUMNS,
    OPTIONAL_COLUMNS,
    AlgorithmFacts,
    TableFilter,
    metadata_given,
    parameter_text,
)


@dataclass(frozen=True)
class BoardLink:
    """A link to the page (``url``, works without JavaScript) and to its leaderboard
    fragment (``fragment_url``, swapped in by leaderboard.js)."""

    url: str
    fragment_url: str


Linker = Callable[..., BoardLink]  # query parameters -> the link with them


@dataclass(frozen=True)
class Header:
    """A column's header cell: its definition, label, and the link that sorts by it."""

    column: Column
    label: str
    title: str
    link: BoardLink | None
    aria_sort: str  # "ascending", "descending" or "" (not sorted by this column)
    scale: str = ""  # the interval bar's range, on its own small line


@dataclass(frozen=True)
class ChosenColumns:
    """The table's columns as the reader chose them, each algorithm's text of the chosen
    extra columns (metadata, per-dataset scores), and the values those sort by."""

    columns: tuple[Column, ...]
    text: Mapping[str, tuple[tuple[str, str], ...]] | None  # None: no extra column
    sort_values: Mapping[str, Sequence[float | None]]  # column key -> aligned with names


def _metadata_text(key: str, facts: AlgorithmFacts) -> str:
    if key == "parameters":
        return parameter_text(facts.parameters)
    if key == "open_weights":
        return {True: "yes", False: "no", None: "–"}[facts.open_weights]
    return getattr(facts, key) or "–"


def dataset_column(
    index: int,
    name: str | DatasetName,
    metric: str,
    higher_is_better: bool,
    *,
    stored: bool = True,
) -> Column:
    """The column of one chosen dataset's scores (``dataset_<index>``, its place in the
    reader's choice: the sort link stays right as long as the choice does), labelled by
    the dataset's display name."""
    shown = name if isinstance(name, DatasetName) else dataset_display_name(name)
    named = f"{shown.label} ({shown.key})" if shown.detail else shown.key
    title = (
        f"{metric} on {named}: the score this version's analysis ranked (the mean over folds "
        "where folds were given)"
        if stored
        else f"{metric} on {named}: not stored with this version (an older engine or a board "
        "beyond the stored size)"
    )
    return Column(f"dataset_{index}", shown.label, title, descending=higher_is_better)


def chosen_columns(
    columns: Sequence[Column],
    table_filter: TableFilter,
    facts: Mapping[str, AlgorithmFacts],
    names: tuple[str, ...],
    *,
    dataset_scores: Mapping[str, Mapping[str, float]] | None,
    board: BoardView,
    metric: str,
    descriptions: Mapping[str, str] | None = None,
) -> ChosenColumns:
    """The board's columns as chosen (``cols`` and ``ds``). Per-dataset scores are shown
    with the precision of the metric's mean column (:func:`score_digits` of the means);
    ``dataset_scores`` None: the version does not store them (the cells show a dash). A
    metadata column no algorithm of the board has a value for is not shown."""
    kept = [c for c in columns if c.key not in OPTIONAL_COLUMNS or table_filter.shows(c.key)]
    given = metadata_given(facts.values())
    metadata = [c for c in METADATA_COLUMNS if table_filter.shows(c.key) and c.key in given]
    higher = board.typed.input.direction == "higher"
    stored = dataset_scores is not None
    described = descriptions or {}
    datasets = [
        (
            dataset_column(
                k,
                dataset_display_name(name, described.get(name, "")),
                metric,
                higher,
                stored=stored,
            ),
            (dataset_scores or {}).get(name, {}),
        )
        for k, name in enumerate(table_filter.datasets, start=1)
    ]
    if not metadata and not datasets:
        return ChosenColumns(tuple(kept), None, {})
    scores = board.typed.scores
    digits = score_digits(getattr(scores, "mean", ()))
    none = AlgorithmFacts()
    text = {
        name: tuple((c.key, _metadata_text(c.key, facts.get(name, none))) for c in metadata)
        + tuple((c.key, number_text(values.get(name), digits)) for c, values in datasets)
        for name in names
    }
    sort_values = {c.key: tuple(values.get(name) for name in names) for c, values in datasets}
    return ChosenColumns(tuple(kept + metadata + [c for c, _ in datasets]), text, sort_values)


def sort_request(key: str, order: str, columns: Sequence[Column]) -> tuple[str | None, bool]:
    """``?sort=<column>&order=asc|desc``: a sortable column shown, or None; the direction."""
    if key not in {c.key for c in columns if c.sortable}:
        return None, False
    return key, order == "desc"


def headers(
    columns: Sequence[Column], *, sort: str | None, descending: bool, scale: float, link: Linker
) -> list[Header]:
    """The header cells; ``link(**query)`` makes a sort link with the page's other state."""
    out = []
    for column in columns:
        current = column.key == sort
        # a click sorts the column its better way first; a second click reverses it
        wants_desc = (not descending) if current else column.descending
        order_query = {"sort": column.key, "order": "desc" if wants_desc else "asc"}
        if column.key == "position" and not current:
            order_query = {}
        out.append(
            Header(
                column=column,
                label=column.label,
                title=column.title,
                scale=f"bar: 0 to {scale:g}" if column.key == "interval" else "",
                link=link(**order_query) if column.sortable else None,
                aria_sort=("descending" if descending else "ascending") if current else "",
            )
        )
    return out


def estimator_choices(board: BoardView, selected: str, link: Linker) -> list[EstimatorChoice]:
    """The switcher's estimators, each with the links that pick it."""
    out = []
    for estimator in board.estimators:
        to = link(estimator=estimator.key)
        out.append(
            EstimatorChoice(
                estimator=estimator,
                selected=estimator.key == selected,
                recommended=estimator.key == board.recommended,
                url=to.url,
                fragment_url=to.fragment_url,
            )
        )
    return out


@dataclass(frozen=True)
class ColumnChoice:
    key: str
    label: str
    shown: bool


@dataclass(frozen=True)
class DatasetChoice:
    """One dataset of the chooser: its display name (``label``, ``detail``) and the key
    the form sends, which the chooser's search matches (leaderboard.js)."""

    shown: DatasetName
    chosen: bool

    @property
    def name(self) -> str:
        return self.shown.key


@dataclass(frozen=True)
class ReaderTable:
    """The filter form's choices and what the filtered table means."""

    filter: TableFilter
    families: tuple[str, ...]
    licences: tuple[str, ...]
    precisions: tuple[str, ...]
    has_open_weights: bool  # some algorithm says whether its weights are published
    has_sizes: bool
    columns: tuple[ColumnChoice, ...]
    datasets: tuple[DatasetChoice, ...]
    datasets_more: int  # datasets not offered in the chooser (beyond its bound)
    max_datasets: int
    hidden: Mapping[str, str]  # the page's other query parameters, kept by the form
    clear_url: str
    n_shown: int
    n_all: int

    @property
    def results_text(self) -> str:
        """What a search found, as announced after it ("3 results", "No results")."""
        if self.n_shown == 0:
            return "No results"
        return f"{self.n_shown} result{'' if self.n_shown == 1 else 's'}"

    @property
    def note(self) -> str:
        if not self.filter.active:
            return ""
        return (
            f"Showing {self.n_shown} of {self.n_all} algorithms. The filter hides rows of the "
            f"full analysis: positions, P(win), intervals and ranks are those computed over all "
            f"{self.n_all}; the subset is not ranked again."
        )


# The chooser offers this many datasets (the board's order); more can be chosen by URL.
DATASET_CHOICES = 300


def reader_table(
    table_filter: TableFilter,
    facts: Mapping[str, AlgorithmFacts],
    *,
    datasets: Sequence[str],
    n_shown: int,
    n_all: int,
    hidden: Mapping[str, str],
    clear_url: str,
    max_datasets: int,
    descriptions: Mapping[str, str] | None = None,
) -> ReaderTable:
    """The form's choices: a metadata filter or column only where some algorithm of the
    board has a value for it; the datasets by their display names."""
    labels = {c.key: c.label for c in (*COLUMNS, *METADATA_COLUMNS)}
    chosen = set(table_filter.datasets)
    offered = list(datasets[:DATASET_CHOICES])
    offered += [name for name in table_filter.datasets if name not in offered]
    given = metadata_given(facts.values())
    described = descriptions or {}
    return ReaderTable(
        filter=table_filter,
        families=tuple(sorted({f.family for f in facts.values() if f.family})),
        licences=tuple(sorted({f.licence for f in facts.values() if f.licence})),
        precisions=tuple(sorted({f.precision for f in facts.values() if f.precision})),
        has_open_weights="open_weights" in given,
        has_sizes="parameters" in given,
        columns=tuple(
            ColumnChoice(k, labels[k], table_filter.shows(k))
            for k in CHOOSABLE
            if k in OPTIONAL_COLUMNS or k in given
        ),
        datasets=tuple(
            DatasetChoice(dataset_display_name(name, described.get(name, "")), name in chosen)
            for name in offered
        ),
        datasets_more=max(len(datasets) - DATASET_CHOICES, 0),
        max_datasets=max_datasets,
        hidden=hidden,
        clear_url=clear_url,
        n_shown=n_shown,
        n_all=n_all,
    )
