"""A parsed results file as the services' submission entries (one per algorithm)."""

from __future__ import annotations

from estimation.results_csv import ParsedResults
from leaderboard.models import Algorithm, Benchmark, Dataset
from leaderboard.services import Problem, ScoreInput, SubmissionInput, ValidationFailed


def submission_entries_from_results(
    parsed: ParsedResults, *, benchmark: Benchmark, note: str = ""
) -> list[SubmissionInput]:
    """Group the file's records by algorithm, keeping each record's line for the services.

    Raises ``ValidationFailed`` for what the parser cannot know: ranks sent to a
    benchmark of scores, and names longer than the database takes.
    """
    problems = []
    if parsed.kind == "rank" and not benchmark.ranking_only:
        problems.append(
            Problem(
                "this benchmark takes scores, but the file holds ranks "
                "(dataset,algorithm,rank); send scores, or ask a maintainer to make the "
                "benchmark ranking-only",
                "rank",
                line=1,
            )
        )
    dataset_max = Dataset._meta.get_field("name").max_length
    algorithm_max = Algorithm._meta.get_field("name").max_length
    too_long: set[tuple[str, str]] = set()
    by_algorithm: dict[str, list[ScoreInput]] = {}
    for record in parsed.records:
        for field, name, limit in (
            ("dataset", record.dataset, dataset_max),
            ("algorithm", record.algorithm, algorithm_max),
        ):
            if len(name) > limit and (field, name) not in too_long:
                too_long.add((field, name))
                problems.append(
                    Problem(
                        f"the {field} name is longer than {limit} characters",
                        field,
                        line=record.line,
                    )
                )
        by_algorithm.setdefault(record.algorithm, []).append(
            ScoreInput(
                dataset=record.dataset,
                value=record.value,
                metric=record.metric,
                fold=record.fold,
                line=record.line,
            )
        )
    if problems:
        raise ValidationFailed(problems)
    return [
        SubmissionInput(algorithm=name, scores=scores, note=note)
        for name, scores in by_algorithm.items()
    ]
