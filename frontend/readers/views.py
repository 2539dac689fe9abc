"""Reader pages: the benchmark list, a leaderboard (live or one version), its history
and exports. Views parse the request, read through selectors (stored snapshots only,
nothing recomputed) and hand presenters' output to a template."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import wraps
from urllib.parse import quote, urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import mark_safe

from estimation.core.contract import Board, NotApplicable
from estimation.core.verdict import board_verdict
from estimation.models import ResultSnapshot
from estimation.selectors import SnapshotPruned, snapshot_computing, snapshot_failure
from estimation.services import snapshot_cite
from frontend.explore.selectors import MAX_QUERY_LENGTH, site_search
from frontend.page_cache import (
    page_cache_refuse,
    page_cached_for_every_reader,
    page_cached_with_shell,
)
from frontend.page_shell import leaderboard_shell, site_nav_shell
from frontend.readers.board_table import (
    BoardLink,
    chosen_columns,
    estimator_choices,
    headers,
    reader_table,
    sort_request,
)
from frontend.readers.dataset_names import dataset_display_name
from frontend.readers.exports import (
    FORMATS,
    ExportSource,
    citation_prefix,
    export_csv,
    export_headers,
    export_json,
    export_latex,
)
from frontend.readers.leader_chart import leader_chart
from frontend.readers.presenters import (
    board_columns,
    friedman_summary,
    history_rows,
    leaderboard_board,
    leaderboard_rows,
    selected_estimator,
    table_legend,
)
from frontend.readers.selectors import (
    HISTORY_LIMIT,
    SnapshotView,
    algorithm_facts,
    benchmark_list_for_readers,
    dataset_descriptions,
    snapshot_board_latest,
    snapshot_board_version,
    snapshot_history_rankings,
)
from frontend.readers.table_filters import MAX_DATASET_COLUMNS, TableFilter, table_filter_from
from frontend.selectors import version_dataset_scores
from leaderboard.models import Benchmark, Metric
from leaderboard.selectors import (
    benchmark_get_visible,
    benchmark_list_visible,
    benchmark_metric_list,
)
from leaderboard.services import user_is_maintainer

POLL_SECONDS = 5


def benchmark_index(request: HttpRequest) -> HttpResponse:
    """The benchmark list; ``?q=`` searches benchmarks, algorithms and datasets."""
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    benchmarks = benchmark_list_for_readers(user=request.user, query=query)
    hits = site_search(query=query, benchmarks=benchmark_list_visible(user=request.user))
    return render(
        request,
        "frontend/benchmark_list.html",
        {"benchmarks": benchmarks, "query": query, "hits": hits, "max_query": MAX_QUERY_LENGTH},
    )


def _readable(request: HttpRequest, slug: str) -> tuple[Benchmark, Metric | None, list[Metric]]:
    """The benchmark (404 if the user may not read it) and the ``?metric=`` asked for."""
    try:
        benchmark = benchmark_get_visible(slug=slug, user=request.user)
    except Benchmark.DoesNotExist:
        raise Http404("No such benchmark") from None
    metrics = list(benchmark_metric_list(benchmark=benchmark))
    name = request.GET.get("metric", "")
    if not name:
        return benchmark, (metrics[0] if metrics else None), metrics
    for metric in metrics:
        if metric.name == name:
            return benchmark, metric, metrics
    raise Http404(f"No metric {name!r} in this benchmark")


def _metric_query(metric: Metric | None, metrics: list[Metric]) -> dict[str, str]:
    """``{"metric": name}`` unless it is the default (primary) metric."""
    return {"metric": metric.name} if metric is not None and metric != metrics[0] else {}


def _url(name: str, query: Mapping[str, str | tuple[str, ...]], **kwargs) -> str:
    url = reverse(name, kwargs=kwargs)
    return f"{url}?{urlencode(query, doseq=True)}" if query else url


BOARD_PAGE_SIZE = 100


@dataclass(frozen=True)
class BoardPages:
    """Where the shown rows sit in the whole board, and the links to move."""

    size: int
    total: int
    number: int
    count: int
    start: int
    end: int
    show_all: bool
    first: BoardLink | None
    previous: BoardLink | None
    next: BoardLink | None
    last: BoardLink | None
    all: BoardLink
    paged: BoardLink


def _page_number(request: HttpRequest) -> int:
    try:
        return max(int(request.GET.get("page", "1")), 1)
    except ValueError:
        return 1


def _board_pages(
    total: int, *, number: int, show_all: bool, link
) -> tuple[BoardPages | None, slice]:
    """The rows to show (a page of ``BOARD_PAGE_SIZE`` or all) and the pagination links;
    no pagination at all when everything fits on one page."""
    size = BOARD_PAGE_SIZE
    count = max(-(-total // size), 1)
    if count == 1:
        return None, slice(None)
    if show_all:
        number, shown = 1, slice(None)
    else:
        number = min(number, count)
        shown = slice((number - 1) * size, number * size)
    pages = BoardPages(
        size=size,
        total=total,
        number=number,
        count=count,
        start=(number - 1) * size + 1,
        end=min(number * size, total),
        show_all=show_all,
        first=link(page=1) if number > 2 else None,
        previous=link(page=number - 1) if number > 1 else None,
        next=link(page=number + 1) if number < count else None,
        last=link(page=count) if number < count - 1 else None,
        all=link(all="1"),
        paged=link(),
    )
    return pages, shown


DATASET_LINKS = 40


def algorithm_url_maker(slug: str, route: str = "explore-algorithm", kwarg: str = "algorithm"):
    """``name -> reverse("explore-algorithm", slug, name)`` without a ``reverse`` per row
    (a hundredth of a millisecond instead of a fifth): the same quoting as Django's."""
    marker = "-"
    path = reverse(route, kwargs={"slug": slug, kwarg: marker})
    prefix, suffix = path[: path.rindex(marker)], path[path.rindex(marker) + 1 :]
    safe = RFC3986_SUBDELIMS + "/~:@"
    return lambda name: f"{prefix}{quote(name, safe=safe)}{suffix}"


@dataclass(frozen=True)
class _Place:
    """Where a leaderboard section's links lead: its page and fragment routes, with the
    query every link keeps (metric and filter)."""

    slug: str
    page: str
    fragment: str
    kwargs: dict[str, object]
    metric_query: dict[str, str]
    filter_query: dict[str, str | tuple[str, ...]]

    def link(self, **query: str) -> BoardLink:
        full = {**self.metric_query, **self.filter_query, **query}
        return BoardLink(
            url=_url(self.page, full, **self.kwargs),
            fragment_url=_url(self.fragment, full, **self.kwargs),
        )


def _place(
    benchmark: Benchmark,
    metric_query: dict[str, str],
    snapshot: SnapshotView | None,
    *,
    live: bool,
    page_route: str | None,
    table_filter: TableFilter,
) -> _Place:
    version_kwargs = {} if live or snapshot is None else {"version": snapshot.version}
    return _Place(
        slug=benchmark.slug,
        page=page_route or ("benchmark-leaderboard" if live else "benchmark-version"),
        fragment="benchmark-board-fragment" if live else "benchmark-version-board-fragment",
        kwargs={"slug": benchmark.slug, **version_kwargs},
        metric_query=metric_query,
        filter_query=table_filter.url_query(),
    )


def _leaderboard_context(
    request: HttpRequest,
    *,
    benchmark: Benchmark,
    metric: Metric | None,
    metrics: list[Metric],
    snapshot: SnapshotView | None,
    live: bool,
    fragment: bool = False,
    page_route: str | None = None,
) -> dict:
    """What ``_leaderboard.html`` shows (and, unless ``fragment``, the rest of the page).
    ``page_route`` is the page the table's links lead to (the embed's own, in the embed)."""
    metric_query = _metric_query(metric, metrics)
    slug = benchmark.slug
    context: dict = {
        "benchmark": benchmark,
        "metric": metric,
        "metrics": metrics,
        "metric_query": metric_query,
        "snapshot": snapshot,
        "citation_prefix": citation_prefix(benchmark.citation),
        "live": live,
        "history_url": _url("benchmark-history", metric_query, slug=slug),
        "live_url": _url("benchmark-leaderboard", metric_query, slug=slug),
        "computing": _computing(benchmark, metric, snapshot) if live and not fragment else None,
    }
    table_filter = table_filter_from(request.GET)
    if snapshot is not None and snapshot.board is not None:
        board = snapshot.board
        table_filter = table_filter.known_datasets(board.input.datasets)
        place = _place(
            benchmark,
            metric_query,
            snapshot,
            live=live,
            page_route=page_route,
            table_filter=table_filter,
        )
        descriptions = dataset_descriptions(
            benchmark=benchmark, names=board.input.datasets, version=snapshot.version
        )
        context.update(
            _board_context(request, benchmark, metric, snapshot, board, place, descriptions)
        )
        context.update(
            _table_context(
                request, benchmark, metric, snapshot, board, place, table_filter, descriptions
            )
        )
    if fragment:
        return context
    context["client_config"] = _client_config(benchmark, metric_query, snapshot, live=live)
    return context


def _computing(benchmark: Benchmark, metric: Metric | None, snapshot: SnapshotView | None):
    """The recompute in progress that will replace the version shown, if any."""
    if metric is None:
        return None
    shown = snapshot.version if snapshot is not None else None
    return snapshot_computing(benchmark=benchmark, metric=metric, shown_version=shown)


def _client_config(
    benchmark: Benchmark, metric_query: dict[str, str], snapshot: SnapshotView | None, *, live
) -> dict:
    """What leaderboard.js reads (JSON in the page): the live page polls, a version not."""
    kwargs: dict[str, object] = {"slug": benchmark.slug}
    if not live and snapshot is not None:
        kwargs["version"] = snapshot.version
    fragment = "benchmark-board-fragment" if live else "benchmark-version-board-fragment"
    return {
        "live": live,
        "version": snapshot.version if snapshot else None,
        "pollSeconds": POLL_SECONDS,
        "fragmentUrl": _url(fragment, metric_query, **kwargs),
        "statusUrl": _url("api-snapshot-status", metric_query, slug=benchmark.slug)
        if live
        else None,
    }


def _board_context(
    request: HttpRequest,
    benchmark: Benchmark,
    metric: Metric | None,
    snapshot: SnapshotView,
    board: Board,
    place: _Place,
    descriptions: Mapping[str, str],
) -> dict:
    """What the section shows around the table: verdict, links, exports, citation."""
    slug = benchmark.slug
    estimator = selected_estimator(board, request.GET.get("estimator"))
    estimator_query = {"estimator": estimator} if "estimator" in request.GET else {}
    verdict = board_verdict(board, estimator)
    permalink = _url("benchmark-version", place.metric_query, slug=slug, version=snapshot.version)
    dataset_url = algorithm_url_maker(slug, "explore-dataset", "dataset")
    return {
        "verdict": None if isinstance(verdict, NotApplicable) else verdict,
        "dataset_index_url": reverse("explore-dataset-index", kwargs={"slug": slug}),
        "scores_export_url": reverse("explore-scores-export", kwargs={"slug": slug}),
        "dataset_links": [
            (dataset_display_name(name, descriptions.get(name, "")).label, dataset_url(name))
            for name in board.input.datasets[:DATASET_LINKS]
        ],
        "friedman": friedman_summary(board),
        "input": board.input,
        "permalink": permalink,
        "permalink_absolute": request.build_absolute_uri(permalink),
        "exports": {
            fmt: _url(
                "benchmark-export",
                {**place.metric_query, **estimator_query},
                slug=slug,
                version=snapshot.version,
                fmt=fmt,
            )
            for fmt in FORMATS
        },
    }


def _table_context(
    request: HttpRequest,
    benchmark: Benchmark,
    metric: Metric | None,
    snapshot: SnapshotView,
    board: Board,
    place: _Place,
    table_filter: TableFilter,
    descriptions: Mapping[str, str],
) -> dict:
    """The table: chosen columns, sorted and paged rows, headers, switcher, filter form."""
    view = leaderboard_board(board)
    estimator = selected_estimator(board, request.GET.get("estimator"))
    show_all = {"all": "1"} if request.GET.get("all") == "1" else {}
    estimator_query = {"estimator": estimator} if "estimator" in request.GET else {}
    legend = table_legend(board, estimator)
    facts = algorithm_facts(benchmark=benchmark, version=snapshot.version)
    visible = table_filter.visible(board.algorithms, facts)
    chosen = chosen_columns(
        board_columns(view, metric.name if metric else None, legend),
        table_filter,
        facts,
        board.algorithms,
        dataset_scores=_dataset_scores(snapshot, table_filter.datasets),
        board=view,
        metric=metric.name if metric else "score",
        descriptions=descriptions,
    )
    sort, descending = sort_request(
        request.GET.get("sort", "")[:40], request.GET.get("order", ""), chosen.columns
    )
    sort_query = {"sort": sort, "order": "desc" if descending else "asc"} if sort else {}
    n_shown = view.n_algorithms if visible is None else len(visible)
    board_pages, shown = _board_pages(
        n_shown,
        number=_page_number(request),
        show_all=bool(show_all),
        link=lambda **query: place.link(**estimator_query, **sort_query, **query),
    )
    rows, scale = leaderboard_rows(
        view,
        estimator,
        shown,
        sort=sort,
        descending=descending,
        keep=visible,
        extra=chosen.text,
        sort_values=chosen.sort_values,
    )
    algorithm_url = algorithm_url_maker(benchmark.slug)
    columns = list(chosen.columns)
    page_query = {"page": str(board_pages.number)} if board_pages and not show_all else {}
    return {
        "board": view,
        "estimator": view.estimator(estimator),
        "legend": legend,
        "rows": [mark_safe(row.html(columns, algorithm_url(row.algorithm))) for row in rows],
        "columns": columns,
        "headers": headers(
            columns,
            sort=sort,
            descending=descending,
            scale=scale,
            link=lambda **query: place.link(**estimator_query, **show_all, **query),
        ),
        "sort": sort,
        "board_pages": board_pages,
        "refresh_url": _url(
            place.fragment,
            {
                **place.metric_query,
                **place.filter_query,
                **estimator_query,
                **sort_query,
                **show_all,
                **page_query,
            },
            **place.kwargs,
        ),
        "reader_table": reader_table(
            table_filter,
            facts,
            datasets=board.input.datasets,
            n_shown=n_shown,
            n_all=view.n_algorithms,
            hidden={**place.metric_query, **estimator_query, **sort_query},
            clear_url=_url(place.page, {**place.metric_query, **estimator_query}, **place.kwargs),
            max_datasets=MAX_DATASET_COLUMNS,
            descriptions=descriptions,
        ),
        "fragment_action": _url(place.fragment, {}, **place.kwargs),
        "bar_scale": scale,
        "estimator_choices": estimator_choices(
            view, estimator, lambda **query: place.link(**query, **sort_query, **show_all)
        ),
    }


def _dataset_scores(
    snapshot: SnapshotView, datasets: tuple[str, ...]
) -> dict[str, dict[str, float]] | None:
    """The chosen datasets' values as this version's analysis ranked them (None: the
    version does not store them)."""
    if not datasets:
        return {}
    return version_dataset_scores(snapshot_id=snapshot.snapshot_id, datasets=datasets)


def _failure(benchmark: Benchmark, metric: Metric | None):
    return snapshot_failure(benchmark=benchmark, metric=metric) if metric is not None else None


@page_cached_with_shell(leaderboard_shell)
def benchmark_leaderboard(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark, metric, metrics = _readable(request, slug)
    snapshot = (
        snapshot_board_latest(benchmark=benchmark, metric=metric) if metric is not None else None
    )
    context = _leaderboard_context(
        request, benchmark=benchmark, metric=metric, metrics=metrics, snapshot=snapshot, live=True
    )
    context["is_maintainer"] = user_is_maintainer(user=request.user, benchmark=benchmark)
    context["failure"] = _failure(benchmark, metric)
    context["client_config"]["failureVersion"] = (
        context["failure"].version if context["failure"] else None
    )
    context["client_config"]["failureUrl"] = _url(
        "benchmark-failure-fragment", context["metric_query"], slug=slug
    )
    response = render(request, "frontend/benchmark_leaderboard.html", context)
    # A recompute's progress moves without a signal: that page is drawn per request.
    return page_cache_refuse(response) if context["computing"] is not None else response


def benchmark_failure_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    """The live page's recompute-failure notice alone (empty when nothing failed): what
    leaderboard.js swaps in when the status says the failure changed."""
    benchmark, metric, _metrics = _readable(request, slug)
    response = render(
        request,
        "frontend/readers/_recompute_failure.html",
        {"failure": _failure(benchmark, metric)},
    )
    response["X-Robots-Tag"] = "noindex"
    return response


def live_board_context(request: HttpRequest, slug: str, page_route: str | None = None) -> dict:
    """The live leaderboard section's context (same query as the page): the board
    fragment and the embed (whose sort links stay in the embed) both draw it."""
    benchmark, metric, metrics = _readable(request, slug)
    snapshot = (
        snapshot_board_latest(benchmark=benchmark, metric=metric) if metric is not None else None
    )
    return _leaderboard_context(
        request,
        benchmark=benchmark,
        metric=metric,
        metrics=metrics,
        snapshot=snapshot,
        live=True,
        fragment=True,
        page_route=page_route,
    )


@page_cached_for_every_reader
def benchmark_board_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    """The live leaderboard section alone, for leaderboard.js."""
    return _fragment(request, live_board_context(request, slug))


class _VersionGone(Exception):
    """A version retention removed, with its 410 answer (see :func:`_pruned_as_410`)."""

    def __init__(self, response: HttpResponse):
        super().__init__(response)
        self.response = response


def _pruned_as_410(view):
    """The view's answer, or 410 Gone where :func:`_version_or_404` found the version
    pruned (:func:`_version_gone`)."""

    @wraps(view)
    def answer(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except _VersionGone as gone:
            return gone.response

    return answer


@page_cached_for_every_reader
@_pruned_as_410
def benchmark_version_board_fragment(request: HttpRequest, slug: str, version: int) -> HttpResponse:
    """One version's leaderboard section alone (the estimator switcher of a permalink)."""
    benchmark, metric, metrics = _readable(request, slug)
    snapshot = _version_or_404(request, benchmark, metric, metrics, version)
    context = _leaderboard_context(
        request,
        benchmark=benchmark,
        metric=metric,
        metrics=metrics,
        snapshot=snapshot,
        live=False,
        fragment=True,
    )
    return _fragment(request, context)


def _fragment(request: HttpRequest, context: dict) -> HttpResponse:
    response = render(request, "frontend/readers/_leaderboard.html", context)
    response["X-Robots-Tag"] = "noindex"
    return response


def _version_or_404(
    request: HttpRequest,
    benchmark: Benchmark,
    metric: Metric | None,
    metrics: list[Metric],
    version: int,
) -> SnapshotView:
    """One version of the board; 404 if it never existed, 410 Gone (through a view
    decorated with :func:`_pruned_as_410`) if retention removed it."""
    if metric is None:
        raise Http404("This benchmark has no metric")
    try:
        return snapshot_board_version(
            benchmark=benchmark,
            metric=metric,
            version=version,
            include_failed=user_is_maintainer(user=request.user, benchmark=benchmark),
        )
    except SnapshotPruned as gone:
        raise _VersionGone(_version_gone(request, benchmark, metric, metrics, gone)) from None
    except ResultSnapshot.DoesNotExist:
        raise Http404(f"No version {version} of these results") from None


def _version_gone(
    request: HttpRequest,
    benchmark: Benchmark,
    metric: Metric | None,
    metrics: list[Metric],
    gone: SnapshotPruned,
) -> HttpResponse:
    """A permalink whose version retention removed: 410, and where its results went."""
    query = _metric_query(metric, metrics)
    context = {
        "benchmark": benchmark,
        "reason": gone.reason,
        "version": gone.version,
        "latest_version": gone.latest,
        "latest_url": None
        if gone.latest is None
        else _url("benchmark-version", query, slug=benchmark.slug, version=gone.latest),
        "history_url": _url("benchmark-history", query, slug=benchmark.slug),
        "live_url": _url("benchmark-leaderboard", query, slug=benchmark.slug),
    }
    response = render(request, "frontend/readers/version_gone.html", context, status=410)
    response["X-Robots-Tag"] = "noindex"
    return response


def _cited(benchmark: Benchmark, metric: Metric | None, snapshot: SnapshotView) -> None:
    """Retention keeps a version whose permalink or export anyone has asked for."""
    if metric is not None and snapshot.is_ready and snapshot.cited_at is None:
        snapshot_cite(benchmark_id=benchmark.pk, metric_id=metric.pk, version=snapshot.version)


@page_cached_with_shell(site_nav_shell)
@_pruned_as_410
def benchmark_version(request: HttpRequest, slug: str, version: int) -> HttpResponse:
    """A permalink: one version's leaderboard, as it was; it never updates itself."""
    benchmark, metric, metrics = _readable(request, slug)
    snapshot = _version_or_404(request, benchmark, metric, metrics, version)
    _cited(benchmark, metric, snapshot)
    context = _leaderboard_context(
        request, benchmark=benchmark, metric=metric, metrics=metrics, snapshot=snapshot, live=False
    )
    return render(request, "frontend/readers/benchmark_version.html", context)


def benchmark_history(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark, metric, metrics = _readable(request, slug)
    entries = (
        snapshot_history_rankings(
            benchmark=benchmark,
            metric=metric,
            include_failed=user_is_maintainer(user=request.user, benchmark=benchmark),
        )
        if metric is not None
        else []
    )
    metric_query = _metric_query(metric, metrics)
    rows = [
        {
            "row": row,
            "url": _url(
                "benchmark-version", metric_query, slug=benchmark.slug, version=row.entry.version
            ),
        }
        for row in history_rows(entries)
    ]
    context = {
        "benchmark": benchmark,
        "metric": metric,
        "metrics": metrics,
        "metric_query": metric_query,
        "rows": rows,
        "truncated": len(entries) >= HISTORY_LIMIT,
        "leader_chart": leader_chart(entries),
        "history_limit": HISTORY_LIMIT,
        "live_url": _url("benchmark-leaderboard", metric_query, slug=benchmark.slug),
    }
    return render(request, "frontend/readers/benchmark_history.html", context)


@page_cached_for_every_reader
@_pruned_as_410
def benchmark_export(request: HttpRequest, slug: str, version: int, fmt: str) -> HttpResponse:
    """One ready version as CSV, JSON or LaTeX, with its version and a citation line."""
    if fmt not in FORMATS:
        raise Http404(f"No export format {fmt!r}")
    benchmark, metric, metrics = _readable(request, slug)
    snapshot = _version_or_404(request, benchmark, metric, metrics, version)
    assert metric is not None  # _version_or_404 raised 404 otherwise
    board = snapshot.board
    if board is None:
        raise Http404(f"Version {version} has no results ({snapshot.status})")
    _cited(benchmark, metric, snapshot)
    permalink = request.build_absolute_uri(
        _url(
            "benchmark-version",
            _metric_query(metric, metrics),
            slug=benchmark.slug,
            version=version,
        )
    )
    source = ExportSource(
        benchmark_title=benchmark.title,
        benchmark_citation=benchmark.citation,
        metric=metric.name,
        version=version,
        finished_at=snapshot.finished_at,
        permalink=permalink,
    )
    estimator = selected_estimator(board, request.GET.get("estimator"))
    if fmt == "csv":
        # ?headers=keys: the API's machine-stable column keys instead of words
        body = export_csv(board, source, estimator, readable=request.GET.get("headers") != "keys")
    elif fmt == "json":
        body = export_json(board, source, estimator)
    else:
        body = export_latex(board, source, estimator)
    response = HttpResponse(body, content_type=FORMATS[fmt])
    for header, value in export_headers(source).items():
        response[header] = value
    metric_part = "" if metric == metrics[0] else f"-{_safe_name(metric.name)}"
    filename = f"{benchmark.slug}{metric_part}-v{version}.{fmt}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name) or "metric"
