"""Charts of a benchmark's results as inline SVG, drawn on the server from the snapshot.

Each chart is two functions: ``<chart>_data`` reads the snapshot and returns a small
frozen dataclass (testable alone), ``draw_<chart>`` turns that into a :class:`Chart` (the
SVG with ``role="img"``, a <title> and a <desc>; an HTML table with the same numbers as
its text alternative; and, when the chart cannot be drawn, the reason). ``<chart>_chart``
composes the two. :mod:`.layout` holds what the families share: the Okabe-Ito palette,
escaping, scales, axes and legends. No JavaScript, no chart library, no database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from frontend.explore.charts.algorithm import (
    algorithm_positions,
    margin_chart,
    rank_histogram_chart,
)
from frontend.explore.charts.critical_difference import (
    CD_MAX_ALGORITHMS,
    critical_difference_chart,
)
from frontend.explore.charts.dataset import dataset_scores_chart
from frontend.explore.charts.estimators import (
    estimator_evaluation_chart,
    estimator_weights_chart,
)
from frontend.explore.charts.layout import Chart
from frontend.explore.charts.ordering import (
    ESTIMATOR_ORDER,
    SHORT_LABELS,
    TEST_LABELS,
    by_mean_rank,
)
from frontend.explore.charts.pvalues import PVALUE_MAX_ALGORITHMS, pvalue_matrix_chart
from frontend.explore.charts.rank_distribution import rank_distribution_chart
from frontend.explore.charts.rank_heatmap import rank_heatmap_chart
from frontend.explore.charts.win_probability import (
    algorithm_estimates_chart,
    win_probability_chart,
)

__all__ = [
    "CHART_SECTIONS",
    "ESTIMATOR_ORDER",
    "SHORT_LABELS",
    "TEST_LABELS",
    "Chart",
    "algorithm_estimates_chart",
    "algorithm_positions",
    "benchmark_charts",
    "critical_difference_chart",
    "dataset_scores_chart",
    "estimator_evaluation_chart",
    "estimator_weights_chart",
    "margin_chart",
    "pvalue_matrix_chart",
    "rank_distribution_chart",
    "rank_heatmap_chart",
    "rank_histogram_chart",
    "win_probability_chart",
]


# The benchmark's charts page draws at most this many algorithms a chart (the best): with
# nine charts on one page, 60 a chart put a 130-algorithm board over its 300 kB budget.
PAGE_MAX_ALGORITHMS = 40

# The sections the benchmark-level charts draw from (estimation/core/contract/).
CHART_SECTIONS = ("board", "nemenyi", "wilcoxon", "rank_matrix")


def benchmark_charts(
    sections: Mapping[str, Any],
    estimator: str | None = None,
    pair_href: Callable[[str, str], str] | None = None,
) -> list[Chart]:
    """Every benchmark-level chart, in reading order, from the typed sections named in
    :data:`CHART_SECTIONS` (a missing one: None); ``pair_href(a, b)`` links the cells of
    the pairwise grids to the pair's head-to-head page."""
    board = sections["board"]
    restricted = getattr(sections, "restricted", None)
    if restricted is not None and len(board.algorithms) > CD_MAX_ALGORITHMS:
        # Above the size of a critical-difference diagram, the pairwise sections only
        # feed the p-value grids: read the slice they draw, not the O(m²) matrices.
        drawn = by_mean_rank(board)[:PVALUE_MAX_ALGORITHMS]
        nemenyi, wilcoxon = restricted("nemenyi", drawn), restricted("wilcoxon", drawn)
    else:
        nemenyi, wilcoxon = sections.get("nemenyi"), sections.get("wilcoxon")
    matrix = sections.get("rank_matrix")
    return [
        win_probability_chart(board, estimator, PAGE_MAX_ALGORITHMS),
        critical_difference_chart(board, nemenyi, "nemenyi"),
        critical_difference_chart(board, wilcoxon, "wilcoxon"),
        rank_distribution_chart(board, matrix, PAGE_MAX_ALGORITHMS),
        rank_heatmap_chart(board, matrix, max_algorithms=PAGE_MAX_ALGORITHMS),
        pvalue_matrix_chart(board, wilcoxon, "wilcoxon", pair_href=pair_href),
        pvalue_matrix_chart(board, nemenyi, "nemenyi", pair_href=pair_href),
        estimator_evaluation_chart(board),
        estimator_weights_chart(board),
    ]
