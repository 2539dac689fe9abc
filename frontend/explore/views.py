"""Pages that explore one benchmark in depth, and the methods page.

Views read a snapshot's typed sections through selectors (only the sections a page
draws) and hand them to the presenters and chart functions; nothing is recomputed here,
except the within-dataset Tukey table of one dataset when the snapshot left the tables
out (too many pairs to store).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse

from estimation.core.verdict import board_order
from estimation.selectors import SnapshotSections, snapshot_latest
from frontend.compare.links import select_options
from frontend.embeds.badges import badge_facts, badge_markdown, badge_svg
from frontend.explore import advice, charts, presenters, robustness, selectors
from frontend.explore.coverage import coverage_table, power_coverage, rank_set_table
from frontend.page_cache import page_cached_with_shell
from frontend.page_shell import site_nav_shell
from frontend.selectors import dataset_scores_now, version_dataset_scores
from leaderboard.ingest.results_csv import RANKING_HEADER
from leaderboard.models import Algorithm, Benchmark, Dataset
from leaderboard.selectors import benchmark_get_visible, benchmark_metric_get, benchmark_metric_list
from leaderboard.services import user_is_maintainer
from leaderboard.spreadsheet import csv_stream

LONG_COLUMNS = ["dataset", "algorithm", "fold", "metric", "score", "standard_error"]
# A ranking-only benchmark's export is a ranking file (its one metric is the rank, lower
# is better): read back as "score", higher would be better and the order reversed.
RANKING_COLUMNS = list(RANKING_HEADER)


def _visible_benchmark(request: HttpRequest, slug: str) -> Benchmark:
    try:
        return benchmark_get_visible(slug=slug, user=request.user)
    except Benchmark.DoesNotExist:
        raise Http404("No such benchmark") from None


def _metric_and_sections(request: HttpRequest, benchmark: Benchmark):
    metric = benchmark_metric_get(benchmark=benchmark, name=request.GET.get("metric"))
    if metric is None:
        raise Http404("No such metric")
    snapshot = snapshot_latest(benchmark=benchmark, metric=metric)
    return metric, snapshot, SnapshotSections(snapshot)


@page_cached_with_shell(site_nav_shell)
def benchmark_charts_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Every benchmark-level chart of the latest snapshot (cached per snapshot in the template)."""
    benchmark = _visible_benchmark(request, slug)
    metric, snapshot, sections = _metric_and_sections(request, benchmark)
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "metrics": list(benchmark_metric_list(benchmark=benchmark)),
        "snapshot": snapshot,
        "sections": sections,
        "estimator": request.GET.get("estimator", ""),
        "control": advice.control_view(sections["board"], request.GET.get("control") or None),
        "advisor": advice.advisor_view(
            sections["advisor"],
            has_board=sections["board"] is not None,
            board=sections["board"],
        ),
        "sensitivity": robustness.sensitivity_view(sections["board"]),
        "source_orders": robustness.source_orders_view(
            sections["board"],
            (
                (o.name, o.source_format, o.values)
                for o in selectors.published_orders(benchmark=benchmark)
            ),
        ),
        "practical": robustness.practical_view(sections["practical"]),
        "power": robustness.power_view(sections["advisor"]),
        "folds_power": robustness.folds_power_view(sections["advisor"]),
    }
    return render(request, "frontend/explore/charts_page.html", context)


def dataset_detail(request: HttpRequest, slug: str, dataset: str) -> HttpResponse:
    benchmark = _visible_benchmark(request, slug)
    try:
        dataset_row = selectors.dataset_get(benchmark=benchmark, name=dataset)
    except Dataset.DoesNotExist:
        raise Http404("No such dataset") from None
    metric, snapshot, sections = _metric_and_sections(request, benchmark)
    board = sections["board"]
    cells = selectors.dataset_fold_scores(benchmark=benchmark, metric=metric, dataset=dataset_row)
    summaries = presenters.dataset_score_summaries(
        cells=cells,
        rank_matrix=sections["rank_matrix"],
        within=sections["within_dataset"],
        dataset=dataset,
        higher_is_better=metric.higher_is_better,
        standard_errors=selectors.dataset_standard_errors(
            benchmark=benchmark, metric=metric, dataset=dataset_row
        ),
    )
    used = board is not None and dataset in board.input.datasets
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "snapshot": snapshot,
        "dataset": dataset_row,
        "summaries": summaries,
        "used_in_analysis": used,
        "has_folds": any(row.folds for row in summaries),
        "has_significance_rank": any(row.significance_rank is not None for row in summaries),
        "has_standard_errors": any(row.standard_error is not None for row in summaries),
        "has_not_separable": any(row.not_separable_from_best for row in summaries),
        "standard_errors_untested": presenters.standard_errors_untested(
            board=board,
            within=sections["within_dataset"],
            dataset=dataset,
            best=summaries[0].algorithm if summaries else None,
        ),
        "scores_chart": charts.dataset_scores_chart(summaries, dataset, metric.name),
        "board": board,
        "by_standard_errors": presenters.dataset_standard_error_pairs(
            within=sections["within_dataset"], dataset=dataset
        ),
        "tukey": presenters.dataset_tukey_table(
            board=board,
            within=sections["within_dataset"],
            dataset=dataset,
            cells=cells,
            higher_is_better=metric.higher_is_better,
        ),
    }
    return render(request, "frontend/explore/dataset.html", context)


def dataset_index(request: HttpRequest, slug: str) -> HttpResponse:
    """Every public dataset of a benchmark with its metadata, and whether the latest
    analysis used it."""
    benchmark = _visible_benchmark(request, slug)
    metric, snapshot, sections = _metric_and_sections(request, benchmark)
    board = sections["board"]
    used = set(board.input.datasets) if board is not None else set()
    dropped = set(board.input.dropped_datasets) if board is not None else set()
    rows = [
        {
            **row,
            "status": "used"
            if row["name"] in used
            else ("left out (missing results)" if row["name"] in dropped else "not analysed"),
        }
        for row in selectors.dataset_index(benchmark=benchmark)
    ]
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "snapshot": snapshot,
        "rows": rows,
        "scores_export_url": reverse("explore-scores-export", kwargs={"slug": slug}),
    }
    return render(request, "frontend/explore/dataset_index.html", context)


def scores_export(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """Every accepted raw score, one line each (``dataset, algorithm, fold, metric,
    score, standard_error``, the last empty where the source gave none; a ranking-only benchmark's as a ranking file, ``dataset, algorithm, rank``),
    metrics in the benchmark's order and algorithms in each leaderboard's order; streamed,
    so memory stays bounded. Either is a file ``manage.py analyze`` and the uploads read."""
    benchmark = _visible_benchmark(request, slug)
    metrics = list(benchmark_metric_list(benchmark=benchmark))
    columns = RANKING_COLUMNS if benchmark.ranking_only else LONG_COLUMNS

    def rows():
        for metric in metrics:
            board = SnapshotSections(snapshot_latest(benchmark=benchmark, metric=metric))["board"]
            order = (
                [board.algorithms[i] for i in board_order(board, board.recommended)]
                if board is not None
                else []
            )
            scores = selectors.accepted_scores_long(
                benchmark=benchmark, metric=metric, algorithm_order=order
            )
            if benchmark.ranking_only:
                scores = ({**row, "rank": row["score"]} for row in scores)
            yield from scores

    response = StreamingHttpResponse(
        csv_stream(columns, rows()), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{benchmark.slug}-scores.csv"'
    return response


def algorithm_detail(request: HttpRequest, slug: str, algorithm: str) -> HttpResponse:
    benchmark = _visible_benchmark(request, slug)
    try:
        algorithm_row = selectors.algorithm_get(benchmark=benchmark, name=algorithm)
    except Algorithm.DoesNotExist:
        raise Http404("No such algorithm") from None
    metric, snapshot, sections = _metric_and_sections(request, benchmark)
    board = sections["board"]
    ranked = board is not None and algorithm in board.algorithms
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "snapshot": snapshot,
        "board": board,
        "algorithm": algorithm_row,
        "owners": list(
            algorithm_row.owners.order_by("username").values_list("username", flat=True)
        ),
        "may_add_owner": request.user.is_authenticated
        and (
            algorithm_row.owners.filter(pk=request.user.pk).exists()
            or user_is_maintainer(user=request.user, benchmark=benchmark)
        ),
        "may_transfer": user_is_maintainer(user=request.user, benchmark=benchmark),
        "ranked": ranked,
        "badge": algorithm_badge_snippet(request, benchmark, algorithm_row),
        # The badge speaks of the primary metric; its preview is drawn here, inline.
        "badge_svg": badge_svg(
            badge_facts(
                board=board,
                algorithm=algorithm_row.name,
                algorithm_version=algorithm_row.version,
                benchmark=benchmark.title,
                results_version=snapshot.version if board is not None else None,
            )
        )
        if metric.is_primary
        else None,
    }
    if ranked:
        margins = []
        if not benchmark.ranking_only:
            # the values of the analysis shown beside them; today's if it does not store them
            scores = version_dataset_scores(snapshot_id=snapshot.pk)
            if scores is None:
                scores = dataset_scores_now(benchmark=benchmark, metric=metric)
            margins = presenters.algorithm_margins(
                scores=scores, algorithm=algorithm, higher_is_better=metric.higher_is_better
            )
        matrix = sections["rank_matrix"]
        context.update(
            mean_rank=board.column(board.mean_rank).get(algorithm),
            win_rate=board.column(board.win_rate).get(algorithm),
            significance_rank=board.column(board.significance_rank).get(algorithm),
            estimates_chart=charts.algorithm_estimates_chart(board, algorithm),
            histogram_chart=charts.rank_histogram_chart(board, matrix, algorithm),
            worst=presenters.worst_datasets(board, matrix, algorithm),
            opponent_options=select_options(
                [name for name in board.top(len(board.algorithms)) if name != algorithm]
            ),
            margin_chart=(
                charts.margin_chart(margins, algorithm, metric.name) if margins else None
            ),
        )
    return render(request, "frontend/explore/algorithm.html", context)


def algorithm_badge_snippet(
    request: HttpRequest, benchmark: Benchmark, algorithm: Algorithm
) -> dict[str, str]:
    """The badge's address and the Markdown that shows it, linking to this page."""
    badge_url = request.build_absolute_uri(
        reverse("embed-badge", kwargs={"slug": benchmark.slug, "algorithm": algorithm.name})
    )
    page_url = request.build_absolute_uri(
        reverse("explore-algorithm", kwargs={"slug": benchmark.slug, "algorithm": algorithm.name})
    )
    alt = f"{algorithm.name} on {benchmark.title}"
    return {
        "url": badge_url,
        "markdown": badge_markdown(badge_url=badge_url, page_url=page_url, alt=alt),
    }


def methods(request: HttpRequest) -> HttpResponse:
    """The methods; with ``?benchmark=<slug>``, that benchmark's estimator advisor too."""
    context: dict[str, object] = {
        "minimax_examples": presenters.minimax_examples(),
        "coverage": coverage_table(),
        "rank_sets": rank_set_table(),
        "power_coverage": power_coverage(),
    }
    slug = request.GET.get("benchmark")
    if slug:
        benchmark = _visible_benchmark(request, slug[:100])
        metric, snapshot, sections = _metric_and_sections(request, benchmark)
        context.update(
            benchmark=benchmark,
            metric=metric,
            snapshot=snapshot,
            advisor=advice.advisor_view(
                sections["advisor"],
                has_board=sections["board"] is not None,
                board=sections["board"],
            ),
        )
    return render(request, "frontend/explore/methods.html", context)
