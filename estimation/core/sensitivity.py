"""Method sensitivity: does the order of the algorithms depend on the aggregate?

Every estimator of the registry and the plain aggregates (mean rank, mean score) put
the algorithms in an order. This module compares those orders: Kendall's tau-b
between every two of them, whether their first place and their first three agree, and
one sentence a reader can act on ("the winner does not depend on the method" or "it
does: ...").

The orders are compared on values rounded to :data:`~estimation.core.rank_inference.
TIE_DIGITS` decimals (a method whose values exceed 1 in magnitude first divided by a power
of two that brings them to 1: scale-free), so two estimates equal up to float noise are a
tie (tau-b counts ties), and the first place of each method is its first row in the board's order: the
estimate, then the better mean rank, then the name (:meth:`contract.Board.order`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from estimation.core.contract import Board, MethodSensitivity, NotApplicable, ScoreSummary
from estimation.core.rank_inference import TIE_DIGITS
from estimation.core.registry import estimator_get

__all__ = [
    "MAX_TAU_PAIRS_PER_BLOCK",
    "SensitivityResult",
    "board_sensitivity",
    "kendall_tau_b",
    "method_sensitivity",
    "sensitivity_sentence",
]

MAX_TAU_PAIRS_PER_BLOCK = 250_000
"""Algorithm pairs per block of the tau computation: memory stays O(methods x block)."""

DIRECT_MAX_ALGORITHMS = 300
"""Up to this many algorithms tau-b counts the pairs directly (O(m^2), vectorised);
above, ``scipy.stats.kendalltau`` (Knight's O(m log m) algorithm) computes the same
statistic for each two methods."""

TOP = 3
"""The size of the leading group whose agreement is reported beside the winner's."""


@dataclass(frozen=True)
class SensitivityResult:
    """Kendall's tau-b between every two methods, and whether their leaders agree.

    ``tau[i, j]`` is NaN where one method has every algorithm tied (tau-b is not
    defined). ``leaders[i]`` is method ``i``'s first algorithm (index), ``top[i]`` its
    first :data:`TOP` (a set, so the order inside does not count).
    """

    keys: tuple[str, ...]
    tau: np.ndarray
    leaders: tuple[int, ...]
    top: tuple[frozenset[int], ...]
    tied_first: tuple[bool, ...]
    orders: tuple[tuple[int, ...], ...] = ()

    @property
    def top1_agree(self) -> bool:
        return len(set(self.leaders)) == 1

    @property
    def top3_agree(self) -> bool:
        return len(set(self.top)) == 1

    @property
    def min_tau(self) -> float | None:
        upper = self.tau[np.triu_indices(len(self.keys), 1)]
        upper = upper[np.isfinite(upper)]
        return float(upper.min()) if upper.size else None


def _tie_rounded(values: np.ndarray) -> np.ndarray:
    """Each row (the last axis) rounded to :data:`TIE_DIGITS` decimals once divided by a
    power of two (exact) that brings its largest magnitude to at most 1: probabilities
    are rounded as they are, and a mean score of 1e300 at 12 significant digits instead
    of overflowing to infinity (``np.round`` multiplies by 10**12 first)."""
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    largest = np.max(np.where(finite, np.abs(values), 0.0), axis=-1, keepdims=True)
    exponent = np.maximum(np.frexp(largest)[1], 0)
    return np.round(np.ldexp(values, -exponent), TIE_DIGITS)


def _order(values: np.ndarray, mean_rank: np.ndarray, names: Sequence[str]) -> tuple[int, ...]:
    """The board's order: larger value first (rounded), then better mean rank, then name."""
    rounded = _tie_rounded(values)
    return tuple(
        int(i) for i in np.lexsort((np.array(names, dtype=str), mean_rank, -rounded)).tolist()
    )


def _signs(values: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    # Compared, not subtracted: two infinite means (scores near the float limits) are a
    # tie, not NaN.
    a, b = values[..., first], values[..., second]
    return (a > b).astype(np.int8) - (a < b).astype(np.int8)


def kendall_tau_b(values: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between every two rows of ``values`` (methods x algorithms).

    ``tau_b(x, y) = sum sgn(x_i - x_j) sgn(y_i - y_j) / sqrt(n_x n_y)`` over the pairs
    ``i < j``, where ``n_x`` counts the pairs not tied in ``x`` (Kendall 1945; what
    ``scipy.stats.kendalltau`` computes by default). NaN where a row is all ties.

    Up to :data:`DIRECT_MAX_ALGORITHMS` the pairs are counted directly, in blocks of
    :data:`MAX_TAU_PAIRS_PER_BLOCK` (memory bounded; work O(methods^2 x m^2)); above,
    ``scipy.stats.kendalltau`` computes each entry in O(m log m).
    """
    values = _tie_rounded(values)
    if values.ndim != 2:
        raise ValueError(f"values must be 2-D (methods x algorithms), got {values.ndim}-D")
    k, m = values.shape
    if m > DIRECT_MAX_ALGORITHMS:
        return _tau_b_sorted(values)
    concordance = np.zeros((k, k))
    untied = np.zeros(k)
    first, second = np.triu_indices(m, 1)
    for start in range(0, first.size, MAX_TAU_PAIRS_PER_BLOCK):
        stop = start + MAX_TAU_PAIRS_PER_BLOCK
        signs = _signs(values, first[start:stop], second[start:stop]).astype(np.float64)
        concordance += signs @ signs.T
        untied += np.abs(signs).sum(axis=1)
    scale = np.sqrt(np.outer(untied, untied))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(scale > 0, concordance / np.where(scale > 0, scale, 1.0), np.nan)
    return np.clip(tau, -1.0, 1.0)


def _tau_b_sorted(values: np.ndarray) -> np.ndarray:
    """:func:`kendall_tau_b` by ``scipy.stats.kendalltau`` (tau-b, O(m log m) a pair)."""
    k = values.shape[0]
    tau = np.eye(k)
    for i in range(k):
        if np.unique(values[i]).size < 2:
            tau[i, :] = tau[:, i] = np.nan
    for i in range(k):
        for j in range(i + 1, k):
            if np.isnan(tau[i, i]) or np.isnan(tau[j, j]):
                continue
            tau[i, j] = tau[j, i] = stats.kendalltau(values[i], values[j]).statistic
    return np.clip(tau, -1.0, 1.0)


def method_sensitivity(
    methods: Sequence[tuple[str, np.ndarray]],
    *,
    mean_rank: np.ndarray | None,
    names: Sequence[str],
) -> SensitivityResult:
    """Compare the orders that ``methods`` give.

    Parameters
    ----------
    methods : sequence of (key, values)
        Each method's value per algorithm, larger is better (a win probability, minus a
        mean rank, an oriented mean score). NaN values sort last.
    mean_rank : ndarray, optional
        The tie break of every order (the board's), None when not known.
    names : sequence of str
        The algorithms, the last tie break.
    """
    if len(methods) < 2:
        raise ValueError(f"methods must hold at least two methods, got {len(methods)}")
    m = len(names)
    tie_break = np.full(m, np.inf) if mean_rank is None else np.asarray(mean_rank, float)
    tie_break = np.where(np.isfinite(tie_break), tie_break, np.inf)
    keys, rows = [], []
    for key, values in methods:
        values = np.asarray(values, dtype=float)
        if values.shape != (m,):
            raise ValueError(f"values of {key!r} must have one entry per algorithm ({m})")
        finite = np.isfinite(values)
        floor = values[finite].min() - 1.0 if finite.any() else 0.0
        keys.append(key)
        rows.append(np.where(finite, values, floor))
    matrix = np.vstack(rows)
    orders = [_order(row, tie_break, names) for row in rows]
    leaders = tuple(order[0] for order in orders)
    rounded = _tie_rounded(matrix)
    tied_first = tuple(
        bool((rounded[i] == rounded[i, leaders[i]]).sum() > 1) for i in range(len(rows))
    )
    return SensitivityResult(
        keys=tuple(keys),
        tau=kendall_tau_b(matrix),
        leaders=leaders,
        top=tuple(frozenset(order[:TOP]) for order in orders),
        tied_first=tied_first,
        orders=tuple(orders),
    )


def sensitivity_sentence(
    result: SensitivityResult, names: Sequence[str], labels: dict[str, str]
) -> str:
    """One sentence: whether the winner depends on the method, and how."""
    if result.top1_agree:
        winner = names[result.leaders[0]]
        shared = [labels[k] for k, tied in zip(result.keys, result.tied_first, strict=True) if tied]
        tail = f" (tied for first under {', '.join(shared)})" if shared else ""
        top = (
            f"; the first {TOP} are the same under every method"
            if result.top3_agree
            else f"; the first {TOP} differ between methods"
        )
        return (
            "The winner does not depend on the method: every method puts "
            f"{winner} first{tail}{top}."
        )
    by_leader: dict[int, list[str]] = {}
    for key, leader in zip(result.keys, result.leaders, strict=True):
        by_leader.setdefault(leader, []).append(labels[key])
    parts = [
        f"{names[leader]} under {', '.join(methods)}"
        for leader, methods in sorted(by_leader.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]
    return f"The winner depends on the method: {'; '.join(parts)}."


def board_sensitivity(board: Board) -> MethodSensitivity | NotApplicable:
    """The board's :class:`~estimation.core.contract.MethodSensitivity`: every estimator
    of the registry, the mean rank and the mean score (each where it applies)."""
    names = board.algorithms
    if len(names) < 2:
        return NotApplicable("a single algorithm: there is no order to compare")
    methods: list[tuple[str, np.ndarray]] = []
    labels: dict[str, str] = {}
    for estimator in board.estimators:
        methods.append((estimator.key, _values(estimator.p)))
        labels[estimator.key] = estimator_get(estimator.key).short_label
    mean_rank = None
    if not isinstance(board.mean_rank, NotApplicable):
        mean_rank = _values(board.mean_rank)
        methods.append(("mean_rank", -mean_rank))
        labels["mean_rank"] = "mean rank"
    if isinstance(board.scores, ScoreSummary) and board.input.direction in ("higher", "lower"):
        sign = 1.0 if board.input.direction == "higher" else -1.0
        methods.append(("mean_score", sign * _values(board.scores.mean)))
        labels["mean_score"] = "mean score"
    result = method_sensitivity(methods, mean_rank=mean_rank, names=names)
    n = len(result.keys)
    return MethodSensitivity(
        methods=result.keys,
        labels=tuple(labels[k] for k in result.keys),
        tau=tuple(
            tuple(None if not np.isfinite(v) else float(v) for v in result.tau[i]) for i in range(n)
        ),
        leaders=tuple(names[i] for i in result.leaders),
        top3=tuple(tuple(names[i] for i in order[:TOP]) for order in result.orders),
        top1_agree=result.top1_agree,
        top3_agree=result.top3_agree,
        min_tau=result.min_tau,
        sentence=sensitivity_sentence(result, names, labels),
    )


def _values(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)
