"""Nadeau and Bengio's corrected resampled t-test (METHODS.md section 7): whether one
estimator's held-out loss differs from another's over repeated cross-validation splits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["NadeauBengio", "nadeau_bengio"]

SAME_LOSS = 1e-12
"""Losses closer than this (relative to 1 or the loss) are equal: two schemes that both
return the uniform vector differ only in the last bits."""


@dataclass(frozen=True, eq=False)
class NadeauBengio:
    """The corrected resampled t-test of one scheme against the MLE (METHODS 7).

    ``difference`` is the mean over splits of (scheme's held-out log loss minus the
    MLE's), negative when the scheme predicts better; ``t`` and ``pvalue`` (two-sided,
    ``J - 1`` degrees of freedom) are None when the differences do not vary.
    """

    difference: float
    t: float | None
    pvalue: float | None


def nadeau_bengio(differences: Any, *, test_train_ratio: float) -> NadeauBengio:
    """Nadeau and Bengio's corrected resampled t-test of paired split losses.

    Parameters
    ----------
    differences : array_like, shape (J,)
        Per split (fold of a repeat), the mean held-out loss of one scheme minus the
        other's.
    test_train_ratio : float
        ``n_test / n_train`` of a split.

    Returns
    -------
    NadeauBengio

    Notes
    -----
    ``t = mean(d) / sqrt((1/J + n_test/n_train) * var(d))``, ``var`` with ``J - 1`` in
    the denominator, against Student's t with ``J - 1`` degrees of freedom. The
    ``n_test/n_train`` term corrects for the overlap of the training sets of repeated
    splits, which makes the plain paired t-test far too liberal. Differences that are
    all equal give no test: ``pvalue`` 1 when they are all zero, None otherwise.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine
       Learning 52, 239-281, 2003.
    """
    from scipy import stats

    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or len(d) < 2:
        raise ValueError(f"differences must be a 1-D array of at least 2 splits, got {d.shape}")
    if not test_train_ratio > 0:
        raise ValueError(f"test_train_ratio must be positive, got {test_train_ratio!r}")
    J = len(d)
    mean = float(d.mean())
    variance = float(d.var(ddof=1))
    scale = max(1.0, float(np.abs(d).max()))
    if variance <= (SAME_LOSS * scale) ** 2:
        same = abs(mean) <= SAME_LOSS * scale
        return NadeauBengio(difference=0.0 if same else mean, t=None, pvalue=1.0 if same else None)
    t = mean / np.sqrt((1.0 / J + test_train_ratio) * variance)
    return NadeauBengio(difference=mean, t=float(t), pvalue=float(2.0 * stats.t.sf(abs(t), J - 1)))
