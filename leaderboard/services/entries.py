"""The checks of submitted entries against their benchmark: names, numbers, folds,
duplicates, metrics, and near-miss names ("did you mean"), every problem located."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from leaderboard.ingest.results_csv import control_character_problem
from leaderboard.models import (
    Benchmark,
)
from leaderboard.services.errors import Problem
from leaderboard.services.inputs import ScoreBlock, ScoreInput, SubmissionInput
from leaderboard.services.text import text_problem, url_problem
from leaderboard.typo_guard import NameIndex, did_you_mean

MAX_PROBLEMS = 100
MAX_FOLD = 2**31 - 1  # Score.fold is a 32-bit integer column
MAX_NAME_LENGTH = 200  # Dataset.name and Algorithm.name


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def entry_problems(benchmark, entries, metrics, primary, datasets, algorithms) -> list[Problem]:
    """Everything wrong with the entries, up to MAX_PROBLEMS, each with its line or field."""
    problems: list[Problem] = []
    if not entries:
        problems.append(Problem("a submission needs at least one score", "scores"))
    seen_algorithms: set[str] = set()
    for entry in entries:
        name = entry.algorithm.strip()
        if not name:
            problems.append(Problem("the algorithm needs a name", "algorithm"))
        elif name in seen_algorithms:
            problems.append(Problem(f"algorithm {name!r} appears twice", "algorithm"))
        seen_algorithms.add(name)
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
        if name and name not in algorithms and not benchmark.allow_new_algorithms:
            problems.append(
                Problem(
                    f"unknown algorithm {name!r}; this benchmark only takes listed algorithms",
                    "algorithm",
                )
            )
        if not entry.scores:
            problems.append(Problem(f"algorithm {name!r} has no scores", "scores"))
        if isinstance(entry.scores, ScoreBlock) and _block_is_clean(
            benchmark, entry.scores, metrics, primary, datasets
        ):
            continue  # checked with numpy; otherwise the loop below says what is wrong
        seen: dict[tuple, int | None] = {}
        for position, score in enumerate(entry.scores, start=1):
            where = {"line": score.line} if score.line is not None else {}
            label = "" if score.line is not None else f"scores[{position}]: "
            if not score.dataset or not str(score.dataset).strip():
                problems.append(Problem(f"{label}dataset is empty", "dataset", **where))
            elif len(score.dataset) > MAX_NAME_LENGTH:
                problems.append(
                    Problem(
                        f"{label}dataset name is longer than {MAX_NAME_LENGTH} characters",
                        "dataset",
                        **where,
                    )
                )
            elif problem := control_character_problem(score.dataset):
                problems.append(Problem(f"{label}dataset name {problem}", "dataset", **where))
            elif score.dataset not in datasets and not benchmark.allow_new_datasets:
                problems.append(
                    Problem(
                        f"{label}unknown dataset {score.dataset!r}; "
                        "this benchmark only takes listed datasets",
                        "dataset",
                        **where,
                    )
                )
            if not _is_number(score.value) or not math.isfinite(score.value):
                problems.append(
                    Problem(
                        f"{label}score must be a finite number, got {score.value!r}",
                        "value",
                        **where,
                    )
                )
            if score.metric is not None and score.metric not in metrics:
                problems.append(
                    Problem(
                        f"{label}unknown metric {score.metric!r}; "
                        f"this benchmark has {sorted(metrics)}"
                        + did_you_mean(score.metric, NameIndex.of(metrics)),
                        "metric",
                        **where,
                    )
                )
            if score.metric is None and primary is None:
                problems.append(Problem("the benchmark has no metric", "metric", **where))
            if score.fold is not None and (
                not isinstance(score.fold, int)
                or isinstance(score.fold, bool)
                or not 0 <= score.fold <= MAX_FOLD
            ):
                problems.append(
                    Problem(f"{label}fold must be an integer from 0 to {MAX_FOLD}", "fold", **where)
                )
            if benchmark.ranking_only and _is_number(score.value) and score.value < 1:
                problems.append(
                    Problem(
                        f"{label}a rank is 1 (best) or more, got {score.value}", "value", **where
                    )
                )
            key = (score.dataset, score.metric or getattr(primary, "name", None), score.fold)
            if key in seen:
                first = seen[key]
                where_first = f" (first given on line {first})" if first is not None else ""
                problems.append(
                    Problem(
                        f"{label}duplicate score for dataset {score.dataset!r}"
                        + (f", fold {score.fold}" if score.fold is not None else "")
                        + where_first,
                        "dataset",
                        **where,
                    )
                )
            else:
                seen[key] = score.line
            if len(problems) >= MAX_PROBLEMS:
                return problems
    return problems


def _block_is_clean(benchmark, block: ScoreBlock, metrics, primary, datasets) -> bool:
    """Whether :func:`entry_problems` would find nothing wrong with ``block``'s scores.

    The same rules, once per distinct name and with numpy over the columns, so a clean
    million-row file is checked without a Python object per row.
    """
    for dataset in block.used_datasets():
        if (
            not dataset.strip()
            or len(dataset) > MAX_NAME_LENGTH
            or control_character_problem(dataset)
            or (dataset not in datasets and not benchmark.allow_new_datasets)
        ):
            return False
    values, folds, codes = block.values, block.folds, block.metric_codes
    if values.dtype.kind != "f" or not np.isfinite(values).all():
        return False
    if benchmark.ranking_only and (values < 1).any():
        return False
    if ((folds > MAX_FOLD) | (folds < -1)).any():
        return False
    used = np.unique(codes).tolist()
    if -1 in used and primary is None:
        return False
    if any(code >= 0 and block.metrics[code] not in metrics for code in used):
        return False
    # Duplicates of (dataset, metric name, fold); no metric means the primary one.
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
    return not same.any()


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
        name = entry.algorithm.strip()
        suggestion = known_algorithms.suggest(name, edits=False) if name else None
        if suggestion is not None:
            line = next((s.line for s in entry.scores if s.line is not None), None)
            problems.append(
                Problem(
                    f"algorithm {name!r} is not in this benchmark; did you mean "
                    f"{suggestion!r}? Use its exact name, or a clearly different one",
                    "algorithm",
                    line=line,
                )
            )
        for dataset, n_scores, line, position in _datasets_in_order(entry.scores):
            if not isinstance(dataset, str) or not dataset.strip() or dataset in known_datasets:
                continue
            if not benchmark.allow_new_datasets:
                break  # entry_problems refuses every unlisted dataset already
            if dataset in first_seen:
                count, problem = first_seen[dataset]
                first_seen[dataset] = (count + n_scores, problem)
                continue
            label = "" if line is not None else f"scores[{position}]: "
            where = {"line": line} if line is not None else {}
            suggestion = known_datasets.suggest(dataset)
            problem = None
            if suggestion is not None:
                problem = Problem(
                    f"{label}dataset {dataset!r} is not in this benchmark; did you mean "
                    f"{suggestion!r}?",
                    "dataset",
                    **where,
                )
            elif not confirmed and known_datasets.names:
                problem = Problem(
                    f"{label}dataset {dataset!r} is new to this benchmark: confirm that "
                    'it is a new dataset to add it (API: "allow_new_datasets": true; '
                    "file upload: tick the new datasets in the preview)",
                    "dataset",
                    **where,
                )
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
