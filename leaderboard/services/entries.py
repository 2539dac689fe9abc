"""The checks of submitted entries against their benchmark: names, numbers, folds,
duplicates, metrics, and near-miss names ("did you mean"), every problem located."""

from __future__ import annotations

import math
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np

from leaderboard.confusables import lookalike_message, lookalikes_new
from leaderboard.ingest.results_csv import control_character_problem
from leaderboard.models import (
    Benchmark,
    Metric,
)
from leaderboard.services.errors import Problem
from leaderboard.services.inputs import ScoreBlock, ScoreInput, SubmissionInput
from leaderboard.services.text import text_problem, url_problem
from leaderboard.typo_guard import NameIndex, did_you_mean, spelling_key


def metric_range_problem(metric: Metric, value: float) -> str | None:
    """Why ``value`` is outside ``metric``'s valid range, or None."""
    low, high = metric.min_value, metric.max_value
    if (low is None or value >= low) and (high is None or value <= high):
        return None
    unit = f" {metric.unit}" if metric.unit else ""
    shown = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
    return f"{value:g} is outside the valid range of metric {metric.name!r}, {shown}{unit}"


def lookalike_problems(
    entries: Sequence[SubmissionInput],
    listed_datasets: Iterable[str],
    listed_algorithms: Iterable[str],
) -> list[Problem]:
    """New names whose Unicode skeleton is a listed name's (leaderboard/confusables.py)."""
    datasets = (
        name
        for e in entries
        for name in (
            e.scores.used_datasets()
            if isinstance(e.scores, ScoreBlock)
            else (s.dataset for s in e.scores)
        )
    )
    return [
        Problem(lookalike_message(kind, name, original), kind)
        for kind, names, listed in (
            ("algorithm", (e.algorithm for e in entries), listed_algorithms),
            ("dataset", datasets, listed_datasets),
        )
        for name, original in lookalikes_new(kind=kind, names=names, listed=listed)
    ]


MAX_PROBLEMS = 100
MAX_FOLD = 2**31 - 1  # a pack holds folds as 32-bit integers (leaderboard.score_packs)
MAX_NAME_LENGTH = 200  # Dataset.name and Algorithm.name


# An algorithm's metadata: field -> most characters of its text; parameters is a positive
# integer (None), open_weights true or false (bool).
ALGORITHM_METADATA: dict[str, int | None | type[bool]] = {
    "family": 100,
    "parameters": None,
    "licence": 100,
    "revision": 100,
    "precision": 30,
    "open_weights": bool,
}


def algorithm_metadata_problems(metadata: Mapping) -> list[Problem]:
    """The rules on an algorithm's metadata, each problem naming its field."""
    problems = []
    for name in sorted(set(metadata) - set(ALGORITHM_METADATA)):
        problems.append(Problem(f"unknown algorithm metadata {name!r}", name))
    for name, longest in ALGORITHM_METADATA.items():
        if name not in metadata:
            continue
        value = metadata[name]
        if longest is bool:
            if not isinstance(value, bool):
                problems.append(Problem(f"{name} must be true or false, got {value!r}", name))
        elif longest is None:
            if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 2**63:
                problems.append(Problem(f"{name} must be a positive integer, got {value!r}", name))
        elif not isinstance(value, str):
            problems.append(Problem(f"{name} must be text", name))
        elif isinstance(longest, int) and (problem := text_problem(value, max_length=longest)):
            problems.append(Problem(f"{name} {problem}", name))
    return problems


def is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """A number (:func:`is_number`) that is finite as a float: an integer past a float's
    range is not (``math.isfinite`` raises OverflowError on it)."""
    try:
        return is_number(value) and math.isfinite(value)
    except OverflowError:
        return False


def entry_problems(benchmark, entries, metrics, primary, datasets, algorithms) -> list[Problem]:
    """Everything wrong with the entries, up to MAX_PROBLEMS, each with its line or field."""
    problems: list[Problem] = []
    if not entries:
        problems.append(Problem("a submission needs at least one score", "scores"))
    percentages = percentage_problems(entries, metrics, primary)
    rules = _ScoreRules(benchmark, metrics, primary, datasets, frozenset(percentages))
    problems += percentages.values()
    seen_algorithms: set[str] = set()
    for entry in entries:
        name = entry.algorithm.strip()
        problems += _algorithm_problems(entry, name, seen_algorithms, benchmark, algorithms)
        seen_algorithms.add(name)
        if not entry.scores:
            problems.append(Problem(f"algorithm {name!r} has no scores", "scores"))
        block = entry.scores if isinstance(entry.scores, ScoreBlock) else _plain_block(entry.scores)
        if block is not None and _block_is_clean(benchmark, block, metrics, primary, datasets):
            continue  # checked with numpy; otherwise the loop below says what is wrong
        seen: dict[tuple, int | None] = {}
        for position, score in enumerate(entry.scores, start=1):
            problems += rules.problems(score, position, seen)
            if len(problems) >= MAX_PROBLEMS:
                return problems
    return problems


def _algorithm_problems(
    entry: SubmissionInput, name: str, seen: set[str], benchmark, algorithms
) -> list[Problem]:
    """The rules on an entry's algorithm: its name, links, note and metadata."""
    problems = []
    if not name:
        problems.append(Problem("the algorithm needs a name", "algorithm"))
    elif name in seen:
        problems.append(Problem(f"algorithm {name!r} appears twice", "algorithm"))
    if len(name) > MAX_NAME_LENGTH:
        problems.append(
            Problem(f"algorithm name is longer than {MAX_NAME_LENGTH} characters", "algorithm")
        )
    for field_name, text in (
        ("algorithm", name),
        ("algorithm_url", entry.algorithm_url),
        ("algorithm_version", entry.algorithm_version),
    ):
        if problem := control_character_problem(text):
            problems.append(Problem(f"{field_name} {problem}", field_name))
    if problem := text_problem(entry.note, prose=True):
        problems.append(Problem(f"note {problem}", "note"))
    if entry.algorithm_url and (problem := url_problem(entry.algorithm_url)):
        problems.append(Problem(f"algorithm_url {problem}", "algorithm_url"))
    problems += algorithm_metadata_problems(entry.algorithm_metadata)
    if name and name not in algorithms and not benchmark.allow_new_algorithms:
        problems.append(
            Problem(
                f"unknown algorithm {name!r}; this benchmark only takes listed algorithms",
                "algorithm",
            )
        )
    return problems


@dataclass(frozen=True)
class _ScoreRules:
    """The rules on one score, against its benchmark's metrics and datasets."""

    benchmark: Benchmark
    metrics: Mapping[str, Metric]
    primary: Metric | None
    datasets: Container[str]
    # Metrics whose values above 1 are told once, as percentages (percentage_problems).
    in_percent: frozenset[str] = frozenset()

    def problems(
        self, score: ScoreInput, position: int, seen: dict[tuple, int | None]
    ) -> list[Problem]:
        """What is wrong with ``score``, the ``position``-th of its entry; ``seen`` maps
        each (dataset, metric, fold) met so far to its line, for duplicates."""
        where = {"line": score.line} if score.line is not None else {}
        label = "" if score.line is not None else f"scores[{position}]: "
        found = [
            self._dataset_problem(score.dataset, label),
            *self._value_problems(score, label),
            self._metric_problem(score.metric, label),
            self._fold_problem(score.fold, label),
            self._rank_problem(score, label),
            self._duplicate_problem(score, label, seen),
        ]
        return [
            Problem(message, field, **where)
            for item in found
            if item is not None
            for message, field in [item]
        ]

    def _dataset_problem(self, dataset, label: str) -> tuple[str, str] | None:
        if not dataset or not str(dataset).strip():
            return f"{label}dataset is empty", "dataset"
        if len(dataset) > MAX_NAME_LENGTH:
            return f"{label}dataset name is longer than {MAX_NAME_LENGTH} characters", "dataset"
        if problem := control_character_problem(dataset):
            return f"{label}dataset name {problem}", "dataset"
        if dataset not in self.datasets and not self.benchmark.allow_new_datasets:
            return (
                f"{label}unknown dataset {dataset!r}; this benchmark only takes listed datasets",
                "dataset",
            )
        return None

    def _value_problems(self, score: ScoreInput, label: str) -> list[tuple[str, str]]:
        if not is_finite_number(score.value):
            return [
                (
                    f"{label}score must be a finite number, got {score.value!r}",
                    score.value_column or "value",
                )
            ]
        metric = self.metrics.get(score.metric) if score.metric is not None else self.primary
        if metric is not None and metric.name in self.in_percent and 1 < score.value <= 100:
            return []  # told once for the whole input
        if metric is not None and (problem := metric_range_problem(metric, score.value)):
            return [(f"{label}{problem}", score.value_column or "value")]
        return []

    def _metric_problem(self, metric, label: str) -> tuple[str, str] | None:
        if metric is not None and metric not in self.metrics:
            return (
                f"{label}unknown metric {metric!r}; this benchmark has "
                f"{sorted(self.metrics)}" + did_you_mean(metric, NameIndex.of(self.metrics)),
                "metric",
            )
        if metric is None and self.primary is None:
            return "the benchmark has no metric", "metric"
        return None

    @staticmethod
    def _fold_problem(fold, label: str) -> tuple[str, str] | None:
        if fold is not None and (
            not isinstance(fold, int) or isinstance(fold, bool) or not 0 <= fold <= MAX_FOLD
        ):
            return f"{label}fold must be an integer from 0 to {MAX_FOLD}", "fold"
        return None

    def _rank_problem(self, score: ScoreInput, label: str) -> tuple[str, str] | None:
        value = score.value
        if self.benchmark.ranking_only and is_number(value) and value < 1:
            return f"{label}a rank is 1 (best) or more, got {value}", score.value_column or "value"
        return None

    def _duplicate_problem(
        self, score: ScoreInput, label: str, seen: dict[tuple, int | None]
    ) -> tuple[str, str] | None:
        key = (score.dataset, score.metric or getattr(self.primary, "name", None), score.fold)
        if key not in seen:
            seen[key] = score.line
            return None
        first = seen[key]
        where_first = f" (first given on line {first})" if first is not None else ""
        fold = f", fold {score.fold}" if score.fold is not None else ""
        return (
            f"{label}duplicate score for dataset {score.dataset!r}{fold}{where_first}",
            "dataset",
        )


def percentage_problems(
    entries: Sequence[SubmissionInput], metrics: Mapping[str, Metric], primary: Metric | None
) -> dict[str, Problem]:
    """One problem per metric of range [0, 1] given in percent, by metric name.

    A file of accuracies saved as 80.61 rather than 0.8061 would otherwise answer one
    "outside the valid range" per value. A metric counts as given in percent when at
    least PERCENT_MIN_VALUES of its values, and at least half of them, are above 1, and
    none is above 100; a stray 1.7 among shares is an ordinary value out of range. The
    problem is located at the first value above 1.
    """
    above = _values_above_one(entries, metrics, primary)
    totals = _finite_counts(entries, primary)
    return {
        name: _percentage_problem(name, seen)
        for name, seen in above.items()
        if seen is not None and looks_like_percentages(seen.count, totals.get(name, 0))
    }


PERCENT_MIN_VALUES = 3


def looks_like_percentages(above_one: int, finite: int) -> bool:
    """Whether a share metric with ``above_one`` of its ``finite`` values between 1 and
    100 (none above 100) was given in percent: at least PERCENT_MIN_VALUES, and at least
    half of its values."""
    return above_one >= PERCENT_MIN_VALUES and 2 * above_one >= finite


@dataclass
class _AboveOne:
    """The values above 1 of one share metric: how many, and where the first is."""

    count: int
    value: float
    line: int | None
    position: int
    column: str | None


def _values_above_one(
    entries: Sequence[SubmissionInput], metrics: Mapping[str, Metric], primary: Metric | None
) -> dict[str, _AboveOne | None]:
    """Per share metric (range [0, 1]) with a value above 1, those values; None for a
    metric with a value above 100 (not percentages: each value is told)."""
    found: dict[str, _AboveOne | None] = {}
    for entry in entries:
        for name, value, line, position, column in _scores_above_one(entry.scores):
            metric = metrics.get(name) if name is not None else primary
            if metric is None or metric.max_value != 1 or metric.min_value not in (None, 0):
                continue
            seen = found.get(metric.name)
            if value > 100:
                found[metric.name] = None
            elif metric.name not in found:
                found[metric.name] = _AboveOne(1, value, line, position, column)
            elif seen is not None:
                seen.count += 1
    return found


def _percentage_problem(name: str, seen: _AboveOne) -> Problem:
    count, value, line = seen.count, seen.value, seen.line
    where = _line_or_position(line, seen.position)
    label = "" if line is not None else f"scores[{seen.position}]: "
    return Problem(
        f"{label}{count} value{'s' if count != 1 else ''} of metric {name!r} "
        f"{'are' if count != 1 else 'is'} above 1 (the first, {value:g}, on {where}): "
        f"these look like percentages; {name!r} is a share from 0 to 1, so divide "
        "them by 100 (80.61 becomes 0.8061)",
        seen.column or "value",
        line,
    )


def _finite_counts(entries: Sequence[SubmissionInput], primary: Metric | None) -> dict[str, int]:
    """How many finite numbers each metric (by name; no metric: the primary) is given."""
    counts: dict[str, int] = {}
    default = primary.name if primary is not None else ""
    for entry in entries:
        scores = entry.scores
        if isinstance(scores, ScoreBlock):
            if scores.values.dtype.kind != "f":
                continue
            finite = np.isfinite(scores.values)
            for code in np.unique(scores.metric_codes).tolist():
                name = scores.metrics[code] if code >= 0 else default
                n = int((finite & (scores.metric_codes == code)).sum())
                counts[name] = counts.get(name, 0) + n
            continue
        for score in scores:
            if is_finite_number(score.value):
                name = score.metric if score.metric is not None else default
                counts[name] = counts.get(name, 0) + 1
    return counts


def _scores_above_one(scores: Sequence[ScoreInput]) -> Iterable[tuple]:
    """(metric name or None, value, line, position, value column) of each finite number
    above 1, in order; a ScoreBlock is searched with numpy."""
    if isinstance(scores, ScoreBlock):
        values = scores.values
        if values.dtype.kind != "f":
            return
        for i in np.flatnonzero(np.isfinite(values) & (values > 1)).tolist():
            code = int(scores.metric_codes[i])
            yield (
                scores.metrics[code] if code >= 0 else None,
                float(values[i]),
                int(scores.lines[i]),
                i + 1,
                scores.value_column,
            )
        return
    for position, score in enumerate(scores, start=1):
        value = score.value
        if is_finite_number(value) and value > 1:
            yield score.metric, value, score.line, position, score.value_column


_PLAIN_VALUES = frozenset({float, int})
_EXACT_INT = 2**53  # every integer up to it is a float exactly


def _plain_block(scores: Sequence[ScoreInput]) -> ScoreBlock | None:
    """``scores`` as columns for :func:`_block_is_clean`, or None where a score is not
    plain (a name that is not text, a value that is not a float or an integer a float
    holds exactly, a fold that is not a natural number): the checks one score at a time
    say what is wrong with those. The block's lines are placeholders: a clean block is
    never worded."""
    datasets = [score.dataset for score in scores]
    values = [score.value for score in scores]
    metrics = [score.metric for score in scores]
    folds = [score.fold for score in scores]
    value_types = set(map(type, values))
    if (
        not set(map(type, datasets)) <= {str}
        or not value_types <= _PLAIN_VALUES
        or not set(map(type, metrics)) <= {str, type(None)}
        or not set(map(type, folds)) <= {int, type(None)}
        or any(fold is not None and fold < 0 for fold in folds)
        # the loop compares an integer exactly; as a float one past 2**53 is rounded
        or (int in value_types and any(type(v) is int and abs(v) > _EXACT_INT for v in values))
    ):
        return None
    dataset_codes: dict[str, int] = {}
    metric_codes: dict[str | None, int] = {None: -1}
    try:
        codes = [dataset_codes.setdefault(d, len(dataset_codes)) for d in datasets]
        kinds = [metric_codes.setdefault(k, len(metric_codes) - 1) for k in metrics]
        return ScoreBlock(
            datasets=tuple(dataset_codes),
            metrics=tuple(k for k in metric_codes if k is not None),
            dataset_codes=np.array(codes, np.int64),
            metric_codes=np.array(kinds, np.int64),
            folds=np.array([-1 if fold is None else fold for fold in folds], np.int64),
            values=np.array(values, np.float64),
            lines=np.zeros(len(values), np.int64),
        )
    except OverflowError:  # an integer past a float, or a fold past 64 bits
        return None


def _block_is_clean(benchmark, block: ScoreBlock, metrics, primary, datasets) -> bool:
    """Whether :func:`entry_problems` would find nothing wrong with ``block``'s scores.

    The same rules, once per distinct name and with numpy over the columns, so a clean
    million-row file is checked without a Python object per row.
    """
    return (
        _block_datasets_clean(benchmark, block, datasets)
        and _block_numbers_clean(benchmark, block, metrics, primary)
        and _block_metrics_known(block, metrics, primary)
        and not _block_has_duplicates(block, primary)
    )


def _block_datasets_clean(benchmark, block: ScoreBlock, datasets) -> bool:
    return not any(
        not dataset.strip()
        or len(dataset) > MAX_NAME_LENGTH
        or control_character_problem(dataset)
        or (dataset not in datasets and not benchmark.allow_new_datasets)
        for dataset in block.used_datasets()
    )


def _block_numbers_clean(benchmark, block: ScoreBlock, metrics, primary) -> bool:
    """Finite values, ranks of 1 or more, values in range, folds in the column's range."""
    values, folds = block.values, block.folds
    if values.dtype.kind != "f" or not np.isfinite(values).all():
        return False
    if benchmark.ranking_only and (values < 1).any():
        return False
    if _block_out_of_range(block, metrics, primary):
        return False
    return not ((folds > MAX_FOLD) | (folds < -1)).any()


def _block_metrics_known(block: ScoreBlock, metrics, primary) -> bool:
    used = np.unique(block.metric_codes).tolist()
    if -1 in used and primary is None:
        return False
    return not any(code >= 0 and block.metrics[code] not in metrics for code in used)


def _block_has_duplicates(block: ScoreBlock, primary) -> bool:
    """Whether a (dataset, metric name, fold) repeats; no metric means the primary one."""
    codes, folds = block.metric_codes, block.folds
    names = sorted(set(block.metrics) | ({primary.name} if primary else set()))
    name_id = np.array(
        [names.index(primary.name) if primary else -1] + [names.index(n) for n in block.metrics],
        dtype=np.int64,
    )[codes + 1]
    order = np.lexsort((folds, name_id, block.dataset_codes))
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for column in (block.dataset_codes, name_id, folds):
        ordered = column[order]
        same &= ordered[1:] == ordered[:-1]
    return bool(same.any())


def _block_out_of_range(block: ScoreBlock, metrics, primary) -> bool:
    """Whether a value of ``block`` is outside its metric's valid range."""
    codes = block.metric_codes
    for code in np.unique(codes).tolist():
        metric = primary if code < 0 else metrics.get(block.metrics[code])
        if metric is None or (metric.min_value is None and metric.max_value is None):
            continue
        values = block.values[codes == code]
        if metric.min_value is not None and (values < metric.min_value).any():
            return True
        if metric.max_value is not None and (values > metric.max_value).any():
            return True
    return False


def typo_problems(
    benchmark: Benchmark,
    entries: Sequence[SubmissionInput],
    listed_datasets: Iterable[str],
    listed_algorithms: Iterable[str],
    *,
    confirmed: bool,
) -> list[Problem]:
    """Names that are probably typos, and new datasets nobody confirmed (typo_guard).

    A dataset the benchmark lacks, but that is close to one it has (case, punctuation,
    one edit), or an algorithm equal to one it has up to case and punctuation, is refused
    with a "did you mean". Any other new dataset
    needs ``confirmed``, unless the benchmark has none yet (nothing to mistype). Only
    public names count as the benchmark's: datasets that a maintainer declared or that
    have an accepted score, algorithms with an accepted submission; so a suggestion never
    reveals what waits in the moderation queue. Each name is reported once, at its first
    line (or its first ``scores[i]``).
    """
    known_datasets = NameIndex.of(listed_datasets)
    known_algorithms = NameIndex.of(listed_algorithms)
    problems: list[Problem] = []
    first_seen: dict[str, tuple[int, Problem | None]] = {}
    for entry in entries:
        if problem := _algorithm_typo(entry, known_algorithms):
            problems.append(problem)
        for dataset, n_scores, line, position in _datasets_in_order(entry.scores):
            if not isinstance(dataset, str) or not dataset.strip() or dataset in known_datasets:
                continue
            if not benchmark.allow_new_datasets:
                break  # entry_problems refuses every unlisted dataset already
            if dataset in first_seen:
                count, problem = first_seen[dataset]
                first_seen[dataset] = (count + n_scores, problem)
                continue
            problem = _new_dataset_problem(dataset, line, position, known_datasets, confirmed)
            first_seen[dataset] = (n_scores, problem)
    for count, problem in first_seen.values():
        if problem is None:
            continue
        if count > 1:
            problem = Problem(
                f"{problem.message} ({count} scores name it)", problem.field, problem.line
            )
        problems.append(problem)
        if len(problems) >= MAX_PROBLEMS:
            break
    return problems


def spelling_problems(
    entries: Sequence[SubmissionInput],
    listed_datasets: Iterable[str],
    listed_algorithms: Iterable[str],
) -> list[Problem]:
    """New names of one input that differ only in case or punctuation ("ux-bad" and
    "UX-Bad"): each would become its own dataset or algorithm. A spelling of a name the
    benchmark has is typo_problems' to suggest."""
    algorithms = [(e.algorithm.strip(), _first_line(e.scores), None) for e in entries]
    datasets = [
        (dataset, line, position)
        for e in entries
        for dataset, _, line, position in _datasets_in_order(e.scores)
        if isinstance(dataset, str)
    ]
    problems = []
    for kind, names, listed in (
        ("algorithm", algorithms, listed_algorithms),
        ("dataset", datasets, listed_datasets),
    ):
        listed = frozenset(listed)
        new = [(name, line, at) for name, line, at in names if name and name not in listed]
        if len(new) < 2:
            continue  # one new name cannot be spelt two ways
        known = {spelling_key(name) for name in listed}
        spellings: dict[str, dict[str, tuple[int | None, str | None]]] = {}
        for name, line, position in new:
            key = spelling_key(name)
            if key and key not in known:
                where = None if position is None else _line_or_position(line, position)
                spellings.setdefault(key, {}).setdefault(name, (line, where))
        for found in spellings.values():
            if len(found) < 2:
                continue
            (first, (line, _)), *others = found.items()
            told = ", ".join(f"{name!r}" + (f" ({at})" if at else "") for name, (_, at) in others)
            problems.append(
                Problem(
                    f"{kind} {first!r} is also spelt {told}: these would be "
                    f"{len(found)} different {kind}s; use one spelling",
                    kind,
                    line=line,
                )
            )
    return problems


def _line_or_position(line: int | None, position: int) -> str:
    return f"line {line}" if line is not None else f"scores[{position}]"


def _first_line(scores: Sequence[ScoreInput]) -> int | None:
    if isinstance(scores, ScoreBlock):
        return int(scores.lines[0]) if len(scores) else None
    return next((s.line for s in scores if s.line is not None), None)


def _algorithm_typo(entry: SubmissionInput, known: NameIndex) -> Problem | None:
    """An algorithm equal to a listed one up to case and punctuation."""
    name = entry.algorithm.strip()
    suggestion = known.suggest(name, edits=False) if name else None
    if suggestion is None:
        return None
    line = next((s.line for s in entry.scores if s.line is not None), None)
    return Problem(
        f"algorithm {name!r} is not in this benchmark; did you mean "
        f"{suggestion!r}? Use its exact name, or a clearly different one",
        "algorithm",
        line=line,
    )


def _new_dataset_problem(
    dataset: str, line: int | None, position: int, known: NameIndex, confirmed: bool
) -> Problem | None:
    """A new dataset close to a listed one, or one nobody confirmed; None if neither."""
    label = "" if line is not None else f"scores[{position}]: "
    where = {"line": line} if line is not None else {}
    suggestion = known.suggest(dataset)
    if suggestion is not None:
        return Problem(
            f"{label}dataset {dataset!r} is not in this benchmark; did you mean {suggestion!r}?",
            "dataset",
            **where,
        )
    if not confirmed and known.names:
        return Problem(
            f"{label}dataset {dataset!r} is new to this benchmark: confirm that "
            'it is a new dataset to add it (API: "allow_new_datasets": true; '
            "file upload: tick the new datasets in the preview)",
            "dataset",
            **where,
        )
    return None


def _datasets_in_order(scores: Sequence[ScoreInput]) -> Iterable[tuple]:
    """(dataset, number of scores, line, position) per score, or per distinct dataset of a
    ScoreBlock (at its first score): what :func:`typo_problems` counts."""
    if not isinstance(scores, ScoreBlock):
        for position, score in enumerate(scores, start=1):
            yield score.dataset, 1, score.line, position
        return
    codes, first, counts = np.unique(scores.dataset_codes, return_index=True, return_counts=True)
    for i in np.argsort(first, kind="stable").tolist():
        at = int(first[i])
        yield scores.datasets[int(codes[i])], int(counts[i]), int(scores.lines[at]), at + 1
