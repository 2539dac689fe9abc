"""What a submission's empty cells will do, said before it is stored and in the answer
once stored (the web form, the file preview, the board's message after an upload, the
API's answers and the background upload's result all ask
:func:`submission_incomplete_notes`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from leaderboard.incomplete import incomplete_decide, incomplete_outcome, incomplete_sentence
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import accepted_score_columns
from leaderboard.services.inputs import ScoreBlock, ScoreInput, SubmissionInput

# (dataset, metric) pairs; a metric None is the benchmark's primary one.
Cells = Iterable[tuple[str, str | None]]


def submission_incomplete_notes(
    *, benchmark: Benchmark, covered: Mapping[str, Cells]
) -> dict[str, str]:
    """For each algorithm of ``covered`` that would leave cells of the board empty (its
    accepted results counted too), the sentence that says what they will do under the
    benchmark's policy (:func:`leaderboard.incomplete.incomplete_sentence`).

    The board is decided as the recompute decides it (:func:`incomplete_decide`), on the
    accepted results with this submission's taken as accepted.
    """
    metrics = [] if benchmark.ranking_only or not covered else list(benchmark.metrics.all())
    if not metrics:
        return {}
    primary = next((m for m in metrics if m.is_primary), metrics[0]).name
    wanted = {
        algorithm: {(dataset, metric or primary) for dataset, metric in cells}
        for algorithm, cells in covered.items()
    }
    empty = dict.fromkeys(wanted, 0)
    board_size = dict.fromkeys(wanted, 0)
    for metric in metrics:
        mine = {a: {d for d, m in cells if m == metric.name} for a, cells in wanted.items()}
        for algorithm, (lacking, n_board) in _shortfall(benchmark, metric, mine).items():
            empty[algorithm] += lacking
            board_size[algorithm] = max(board_size[algorithm], n_board)
    outcome = incomplete_outcome(
        policy=benchmark.incomplete_submissions, missing_policy=benchmark.missing_policy
    )
    notes = {
        algorithm: incomplete_sentence(
            n_empty=empty[algorithm], n_board=board_size[algorithm], outcome=outcome
        )
        for algorithm in wanted
    }
    return {algorithm: note for algorithm, note in notes.items() if note}


def _shortfall(
    benchmark: Benchmark, metric: Metric, mine: Mapping[str, set[str]]
) -> dict[str, tuple[int, int]]:
    """Per algorithm of ``mine`` (its datasets of ``metric``): how many of the board's
    datasets it lacks, and how many the board has, with ``mine`` taken as accepted."""
    accepted = accepted_score_columns(benchmark=benchmark, metric=metric)
    # every dataset the columns name (a declared dataset without results too: no
    # majority has it, so it is not on the board) and the submission's own
    datasets = sorted(set(accepted.dataset_names).union(*mine.values()))
    algorithms = sorted(set(accepted.algorithm_names) | set(mine))
    row = {name: i for i, name in enumerate(datasets)}
    col = {name: j for j, name in enumerate(algorithms)}
    present = np.zeros((len(datasets), len(algorithms)), dtype=bool)
    rows = np.array([row[n] for n in accepted.dataset_names], dtype=np.int64)
    cols = np.array([col[n] for n in accepted.algorithm_names], dtype=np.int64)
    if len(accepted.dataset):
        present[rows[accepted.dataset], cols[accepted.algorithm]] = True
    for algorithm, names in mine.items():
        present[[row[n] for n in names], col[algorithm]] = True
    decision = incomplete_decide(
        present, policy=benchmark.incomplete_submissions, min_coverage=benchmark.min_coverage
    )
    return {
        algorithm: (decision.n_board - int(decision.n_have[col[algorithm]]), decision.n_board)
        for algorithm in mine
    }


def entries_incomplete_notes(
    *, benchmark: Benchmark, entries: Iterable[SubmissionInput]
) -> dict[str, str]:
    """:func:`submission_incomplete_notes` of parsed submissions (a file's, the API's):
    the answer of every entry point says it the same way."""
    return submission_incomplete_notes(
        benchmark=benchmark, covered={e.algorithm: _cells(e.scores) for e in entries}
    )


def _cells(scores: Sequence[ScoreInput]) -> set[tuple[str, str | None]]:
    """The (dataset, metric) pairs of one algorithm's scores; a file's block read as
    columns (a million rows are not built one at a time)."""
    if isinstance(scores, ScoreBlock):
        pairs = np.unique(np.stack([scores.dataset_codes, scores.metric_codes]), axis=1)
        return {
            (scores.datasets[d], scores.metrics[k] if k >= 0 else None) for d, k in pairs.T.tolist()
        }
    return {(score.dataset, score.metric) for score in scores}
