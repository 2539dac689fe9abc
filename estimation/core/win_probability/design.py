"""The mixture coordinates, the fitted result, and the design every fit works on: the
(algorithm, tie size) groups of the winners and their cumulative shares (see the package
docstring)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from estimation.core.rankings import _check_K, _ranks_iv, tie_groups

CLIP = 1e-12

_ZERO = 1e-9


# ---------------------------------------------------------------------------
# coordinates


def lam_to_weights(lam: Any) -> np.ndarray:
    """Position weights ``w[j] = sum_{k>=j} lam[k] / k`` (last axis)."""
    lam = np.asarray(lam, dtype=float)
    K = lam.shape[-1]
    per_k = lam / np.arange(1, K + 1)
    return np.cumsum(per_k[..., ::-1], axis=-1)[..., ::-1]


def weights_to_lam(weights: Any) -> np.ndarray:
    """Mixture coordinates ``lam[k] = k (w[k] - w[k+1])`` of non-increasing weights.

    Raises ``ValueError`` unless ``w`` is non-negative, non-increasing and sums to 1
    (to 1e-9).
    """
    w = np.asarray(weights, dtype=float)
    K = w.shape[-1]
    diffs = w - np.concatenate([w[..., 1:], np.zeros((*w.shape[:-1], 1))], axis=-1)
    if (diffs < -1e-9).any() or not np.allclose(w.sum(axis=-1), 1.0, atol=1e-9):
        raise ValueError("weights must be non-negative, non-increasing and sum to 1")
    return np.clip(diffs, 0.0, None) * np.arange(1, K + 1)


# ---------------------------------------------------------------------------
# results


def _labelled(values: np.ndarray, algorithms: tuple[str, ...] | None) -> Any:
    if algorithms is None:
        return [float(v) for v in values]
    return {a: float(v) for a, v in zip(algorithms, values, strict=True)}


def _finite_or_none(value: float | None) -> float | None:
    if value is None or not np.isfinite(value):
        return None
    return float(value)


@dataclass(frozen=True, eq=False)
class WinProbabilityFit:
    """One fitted estimator of the linear family.

    Attributes
    ----------
    method : str
        ``"mle"``, ``"loo_kl"``, ``"loo_tv"`` or ``"minimax"``.
    weights : ndarray, shape (K,)
        Position weights ``w`` (non-negative, non-increasing, sum 1).
    lam : ndarray, shape (K,)
        The same weights in mixture coordinates.
    p : ndarray, shape (m,)
        Estimated win probabilities.
    loss, loss_mle : float or None
        Leave-one-out loss at ``weights`` and at the MLE weights (LOO fits only; NaN
        when ``n = 1``, where leave-one-out is undefined).
    n_clipped : int or None
        KL only: LOO terms whose probability is zero for every feasible ``w`` (a single
        win and no other top-K appearance), clipped at :data:`CLIP`.
    n_terms : int or None
        Number of LOO terms (winner, dataset) pairs.
    """

    method: str
    weights: np.ndarray
    lam: np.ndarray
    p: np.ndarray
    loss: float | None = None
    loss_mle: float | None = None
    n_clipped: int | None = None
    n_terms: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def K(self) -> int:
        return len(self.weights)

    def to_dict(self, algorithms: tuple[str, ...] | None = None) -> dict[str, Any]:
        """JSON-ready; ``p`` keyed by algorithm name when ``algorithms`` is given."""
        out: dict[str, Any] = {
            "method": self.method,
            "K": self.K,
            "weights": [float(v) for v in self.weights],
            "p": _labelled(self.p, algorithms),
        }
        if self.loss is not None or self.loss_mle is not None:
            out["loss"] = _finite_or_none(self.loss)
            out["loss_mle"] = _finite_or_none(self.loss_mle)
        if self.n_clipped is not None:
            out["n_clipped"] = self.n_clipped
        if self.n_terms is not None:
            out["n_terms"] = self.n_terms
        out.update(self.extra)
        return out


def _readonly(*arrays: np.ndarray) -> None:
    for array in arrays:
        array.setflags(write=False)


# ---------------------------------------------------------------------------
# the design: cumulative positions and winner groups, in sparse form


@dataclass(frozen=True, eq=False)
class _Design:
    n: int
    m: int
    K: int
    positions: sp.csr_matrix  # (n, K*m): share of position k held by a, at k*m + a
    group_algorithm: np.ndarray  # (G,)
    group_profile: np.ndarray  # (G, K): min(k/t, 1), a winner's cumulative share
    group_share: sp.csr_matrix  # (n, G): 1/t for the winners of dataset i
    group_count: sp.csr_matrix  # (n, G): 1 for the winners of dataset i

    # The transposes the products read, built once per design: scipy builds a new matrix
    # object (with its format checks) at every ``.T``.
    @functools.cached_property
    def positions_t(self) -> sp.csc_matrix:
        return self.positions.T

    @functools.cached_property
    def group_share_t(self) -> sp.csc_matrix:
        return self.group_share.T

    @functools.cached_property
    def group_count_t(self) -> sp.csc_matrix:
        return self.group_count.T

    def totals(self, counts: np.ndarray) -> np.ndarray:
        """Cumulative counts ``R[b, k, a] = sum_i counts[b, i] C[i, k, a]``, (B, K, m)."""
        flat = np.asarray(self.positions_t @ np.ascontiguousarray(counts.T)).T
        return np.cumsum(flat.reshape(counts.shape[0], self.K, self.m), axis=1)


def _validated_ranks(ranks: Any) -> np.ndarray:
    """:func:`_ranks_iv` with what every win-probability estimator needs: two algorithms."""
    return _ranks_iv(ranks, min_algorithms=2, purpose="estimate win probabilities")


def _resolve_K(K: int, m: int, known_positions: int | None) -> int:
    known = m if known_positions is None else int(known_positions)
    if not 1 <= known <= m:
        raise ValueError(f"known_positions must be in 1..{m}, got {known_positions!r}")
    K = _check_K(K, m)
    if K > known:
        raise ValueError(
            f"K={K} exceeds known_positions={known}: only the top {known} positions are known"
        )
    return K


def _design(ranks: np.ndarray, K: int) -> _Design:
    start, size = tie_groups(ranks)
    n, m = ranks.shape
    rows, algs = np.nonzero(start <= K)
    s, t = start[rows, algs], size[rows, algs]
    # A tie group at s..s+t-1 gives each member 1/t of each of its positions <= K.
    length = np.minimum(t, K - s + 1)
    entry = np.repeat(np.arange(len(rows)), length)
    offset = np.arange(len(entry)) - np.repeat(np.cumsum(length) - length, length)
    position = s[entry] - 1 + offset
    positions = sp.csr_matrix(
        (1.0 / t[entry], (rows[entry], position * m + algs[entry])), shape=(n, K * m)
    )
    k = np.arange(1, K + 1)

    winner = s == 1
    w_rows, w_algs, w_t = rows[winner], algs[winner], t[winner]
    # Groups keyed by (algorithm, tie size), in sorted order for reproducibility.
    keys = w_algs.astype(np.int64) * (m + 1) + w_t
    unique_keys, group_of = np.unique(keys, return_inverse=True)
    group_algorithm = unique_keys // (m + 1)
    group_t = unique_keys % (m + 1)
    group_profile = np.minimum(k[None, :] / group_t[:, None], 1.0)
    G = len(unique_keys)
    group_share = sp.csr_matrix((1.0 / w_t, (w_rows, group_of)), shape=(n, G))
    group_count = sp.csr_matrix((np.ones(len(w_rows)), (w_rows, group_of)), shape=(n, G))
    return _Design(n, m, K, positions, group_algorithm, group_profile, group_share, group_count)


def _components(totals: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Top-k uniform estimators ``q[b, k, a] = R[b, k, a] / (k N_b)``."""
    K = totals.shape[1]
    return totals / (np.arange(1, K + 1)[None, :, None] * N[:, None, None])
