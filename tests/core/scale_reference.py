"""What the engine computed before the scale work (large boards), to show that it did not change.

:func:`reference_results` runs the pairwise tests, the groups, the win matrix,
Plackett-Luce and the resampling on seeded tables with ties, zero differences and
missing values (up to 200 algorithms). ``tests/core/data/scale_reference.json`` holds
its output from the engine of commit 0bf631f (main before the scale work), written by

    python -m tests.core.scale_reference > tests/core/data/scale_reference.json

run in a directory holding that commit's ``estimation`` (``git archive 0bf631f
estimation/__init__.py estimation/core | tar -x``) with this checkout on PYTHONPATH.
Exact results (counts, statistics that are sums of ranks, significance flags, methods,
reasons, bars and letters) are stored there as SHA-256 digests. Floats differ in their
last bits between CPUs and SIMD kernels, so they are stored as values and compared with
the tolerances of :mod:`tests.core.references`: the fits in that JSON file, and the
p-values, effect sizes and win matrices in ``scale_reference.npz``. The arrays of the
``.npz`` file were written on 2026-12-01 by ``python -m tests.core.scale_reference --floats``
from engine 0.6.0, after checking that their SHA-256 digests equalled those 0bf631f had
stored (so they are 0bf631f's numbers, to the bit, on that machine).

One deliberate change since: a pair identical on every block stays in the
correction's family with p = 1, so the corrected p-values of the other pairs of a table
with such a pair grew. Of the reference tables only ``integers`` has one (algorithms 4
and 5), and only its two arrays in :data:`REFRESHED_FOR_THE_WHOLE_FAMILY` changed (every
digest, the significance flags and letters included, stayed as it was); they were
rewritten with ``python -m tests.core.scale_reference --refresh``, which replaces the
keys of :data:`REFRESHED` in the ``.npz`` file and keeps every other array as stored.
``tests/core/test_scale.py`` checks the rewritten arrays against statsmodels' Holm and
Bonferroni over all the pairs of the reference's own raw p-values. A second one:
paired differences equal in decimal are ties (then the fold-mean rounding rule; since
engine 0.14.0 the exact grid of ``estimation.core.table.decimal_grid``, which gives these
tables the same ties), which moves the Wilcoxon tests of the
tables of rounded scores (``rounded_gaps``, ``rounded_many``, the ``folds`` table): the
entries in :data:`REFRESHED_FOR_DECIMAL_TIES` were rewritten by the same ``--refresh``
(which also replaces those digests in the ``.json`` file and keeps every other one);
the significance flags, bars and letters did not change, and the test checks the new
p-values against scipy on the exact decimal differences. A third one: the
studentized range goes through one interpolant for every batch size, so the stored
Nemenyi p-values (scipy's, or the old interpolant's for more than 40 statistics) are
compared within :data:`tests.core.references.STUDENTIZED_RANGE`, not rewritten.
A fourth one (engine 0.15.0): Plackett-Luce fits take SQUAREM extrapolation steps between
their MM steps and land nearer the fixed point than plain MM stopped, so the stored fits
(``pl_batch``, ``pl_wide_batch``) and the bootstrap's Plackett-Luce quantiles were
replaced with this engine's values in ``scale_reference.json``'s ``values`` (from
:func:`reference_results`), after checking that each moved by less than 5e-4 relative and
that nothing else moved beyond :data:`tests.core.references.ITERATIVE`.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).parent / "data"


FLOAT_FIELDS = (
    "/pvalues",
    "/pvalues_corrected",
    "/effect_size",
    "/wilcoxon_bonferroni",
    "/wins",
    "/wins_gaps",
)
"""Keys whose values are floats from arithmetic that may round differently on another CPU."""


REFRESHED_FOR_THE_WHOLE_FAMILY = (
    "integers/wilcoxon/pvalues_corrected",
    "integers/wilcoxon_bonferroni",
)
"""The reference arrays rewritten when identical pairs joined the correction's family."""

REFRESHED_FOR_DECIMAL_TIES = (
    "rounded_gaps/wilcoxon/pvalues",
    "rounded_gaps/wilcoxon/pvalues_corrected",
    "rounded_gaps/wilcoxon/effect_size",
    "rounded_gaps/wilcoxon/statistic",
    "rounded_gaps/wilcoxon_bonferroni",
    "rounded_many/wilcoxon/pvalues",
    "rounded_many/wilcoxon/pvalues_corrected",
    "rounded_many/wilcoxon/effect_size",
    "rounded_many/wilcoxon/statistic",
    "rounded_many/wilcoxon_bonferroni",
    "folds/effect_size",
)
"""The entries rewritten when differences equal in decimal became ties."""

REFRESHED = REFRESHED_FOR_THE_WHOLE_FAMILY + REFRESHED_FOR_DECIMAL_TIES


def is_float_key(key: str) -> bool:
    return key.endswith(FLOAT_FIELDS)


def _digest(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.dtype != object:
        data = np.ascontiguousarray(value, dtype=float).tobytes()
    else:
        data = json.dumps(np.asarray(value, dtype=object).tolist()).encode()
    return hashlib.sha256(data).hexdigest()


def letter_count(label: str) -> int:
    """Letters in one compact-letter label ('a'..'z', 'A'..'Z', then '[53]', ...)."""
    return len(re.findall(r"\[\d+\]|[a-zA-Z]", label))


def score_tables() -> dict[str, np.ndarray]:
    """Dataset-level scores (n, m), larger is better, NaN for a missing result."""
    rng = np.random.default_rng(20261130)

    def skilled(n: int, m: int) -> np.ndarray:
        return np.linspace(0, 1, m) + rng.normal(size=(n, 1)) + rng.normal(0, 0.6, (n, m))

    tables = {
        # ties and zero differences from rounding, 10 % missing: every regime mixed
        "rounded_gaps": np.round(skilled(30, 12), 1),
        # few integer values: the permutation regime (<= 13 observations with ties)
        "integers": np.round(skilled(12, 40) * 2),
        # continuous, more than 50 datasets: the normal approximation
        "asymptotic_200": skilled(60, 200),
        # continuous, few datasets: the exact distribution
        "exact_150": skilled(8, 150),
        "rounded_many": np.round(skilled(200, 25), 2),
    }
    gaps = rng.random(tables["rounded_gaps"].shape) < 0.1
    tables["rounded_gaps"][gaps] = np.nan
    gaps = rng.random(tables["rounded_many"].shape) < 0.05
    tables["rounded_many"][gaps] = np.nan
    # two identical algorithms: a pair whose differences are all zero
    tables["integers"][:, 5] = tables["integers"][:, 4]
    return tables


def _complete_ranks(scores: np.ndarray) -> np.ndarray:
    from estimation.core.rankings import rank_scores

    complete = scores[np.isfinite(scores).all(axis=1)]
    return np.asarray(rank_scores(complete))


SCHEMES_BEFORE = ("mle", "loo_kl", "loo_tv", "minimax", "borda", "plackett_luce")
"""The schemes of the reference (loo_brier was added later)."""


def _identical_as_before(result: Any) -> Any:
    """The later change to the identical pair itself, undone for the comparison: a pair
    identical on every block now has p = 1, statistic 0, effect 0 and a note; before, all
    four were missing and the note read "all k paired differences are zero". (The other
    change, that pair's p = 1 counted in the correction, moves the other pairs: see
    :data:`REFRESHED_FOR_THE_WHOLE_FAMILY`.)"""
    import dataclasses

    identical = (result.n_common > 0) & (result.n_nonzero == 0)
    np.fill_diagonal(identical, False)
    reasons = result.not_applicable.copy()
    for a, b in zip(*np.nonzero(identical), strict=True):
        reasons[a, b] = f"all {int(result.n_common[a, b])} paired differences are zero"
    return dataclasses.replace(
        result,
        pvalues=np.where(identical, np.nan, result.pvalues),
        pvalues_corrected=np.where(identical, np.nan, result.pvalues_corrected),
        statistic=np.where(identical, np.nan, result.statistic),
        effect_size=np.where(identical, np.nan, result.effect_size),
        not_applicable=reasons,
    )


def reference_results() -> dict[str, Any]:
    """Digests of the exact results, the float arrays, and the fitted values."""
    from estimation.core import aggregates, resampling, significance, within_dataset

    out: dict[str, Any] = {}
    for name, scores in score_tables().items():
        result = _identical_as_before(
            significance.wilcoxon_pairwise(scores, correction="holm", alpha=0.05)
        )
        for field in (
            "pvalues",
            "pvalues_corrected",
            "significant",
            "statistic",
            "effect_size",
            "n_common",
            "n_nonzero",
        ):
            out[f"{name}/wilcoxon/{field}"] = getattr(result, field)
        out[f"{name}/wilcoxon/method"] = result.method
        out[f"{name}/wilcoxon/not_applicable"] = result.not_applicable
        bonferroni = _identical_as_before(
            significance.wilcoxon_pairwise(scores, correction="bonferroni")
        )
        out[f"{name}/wilcoxon_bonferroni"] = bonferroni.pvalues_corrected
        ranks = _complete_ranks(scores)
        mean_ranks = ranks.mean(axis=0)
        nemenyi = significance.nemenyi(ranks, alpha=0.05)
        out[f"{name}/nemenyi/pvalues"] = nemenyi.pvalues
        for test, significant in (
            ("nemenyi", nemenyi.significant),
            ("wilcoxon", result.significant),
        ):
            groups = significance.indistinguishable_groups(significant, mean_ranks)
            out[f"{name}/{test}/bars"] = (
                None if groups.bars is None else [list(bar) for bar in groups.bars]
            )
            out[f"{name}/{test}/letters"] = None if groups.letters is None else list(groups.letters)
            out[f"{name}/{test}/most_letters"] = (
                None if groups.letters is None else max(map(letter_count, groups.letters))
            )
        gapped_ranks = _gapped_ranks(scores)
        out[f"{name}/wins"] = aggregates.pairwise_win_matrix(ranks)
        out[f"{name}/wins_gaps"] = aggregates.pairwise_win_matrix(gapped_ranks)

    rng = np.random.default_rng(7)
    folds = np.round(rng.normal(size=(10, 30)) + np.linspace(0, 1, 30), 1)
    fold_test = _identical_as_before(
        within_dataset.fold_wilcoxon_pairwise(folds, correction="holm", alpha=0.05)
    )
    out["folds/pvalues_corrected"] = fold_test.pvalues_corrected
    out["folds/effect_size"] = fold_test.effect_size
    out["folds/not_applicable"] = fold_test.not_applicable

    tables = score_tables()
    ranks = _complete_ranks(tables["rounded_gaps"])  # 12 algorithms with ties
    wide = _complete_ranks(tables["exact_150"])  # 150 algorithms, 8 datasets
    n = ranks.shape[0]
    counts = np.random.default_rng(3).multinomial(n, np.full(n, 1 / n), size=40).astype(float)
    values: dict[str, Any] = {
        "pl_batch": aggregates.plackett_luce_probabilities(
            ranks, dataset_weights=counts, tol=1e-5
        ).tolist(),
        "pl_top3": aggregates.plackett_luce_probabilities(ranks, known_positions=3).tolist(),
        "pl_wide_batch": aggregates.plackett_luce_probabilities(
            wide,
            dataset_weights=np.random.default_rng(4).multinomial(8, np.full(8, 1 / 8), size=30),
            tol=1e-5,
        ).tolist(),
    }
    boot = _bootstrap(ranks, rng=11, n_boot=200)
    for scheme, summary in boot.schemes.items():
        lower, upper = _percentile_band(summary)
        values[f"bootstrap/{scheme}"] = [lower, upper, summary.p_best.tolist()]
    wide_boot = _bootstrap(wide, rng=12, n_boot=100)
    for scheme, summary in wide_boot.schemes.items():
        values[f"bootstrap_wide/{scheme}"] = list(_percentile_band(summary))
    evaluation = resampling.evaluate_schemes(ranks, rng=13, K=3, schemes=SCHEMES_BEFORE)
    # The parts of the evaluation that were kept (the rest was replaced: the Wilcoxon tests
    # against a data-selected best by tests against the win rate, and TV's "best").
    values["evaluation"] = {
        "leave_one_out": evaluation.leave_one_out,
        "log_loss": {"best": evaluation.best_log, "mean": evaluation.mean_log_loss},
        "n_folds": evaluation.n_folds,
        "n_repeats": evaluation.n_repeats,
        "schemes": list(evaluation.schemes),
        "tv_loss": {"mean": evaluation.mean_tv_loss},
    }
    values["evaluation_losses"] = [evaluation.log_loss.tolist(), evaluation.tv_loss.tolist()]
    digests = {
        key: value if key.endswith("/most_letters") else _digest(value)
        for key, value in out.items()
        if not is_float_key(key)
    }
    floats = {
        key: np.asarray(value, dtype=float) for key, value in out.items() if is_float_key(key)
    }
    return {"digests": digests, "floats": floats, "values": values}


def _bootstrap(ranks: np.ndarray, *, rng: int, n_boot: int) -> Any:
    """The bootstrap of every scheme of before, keeping its replicates where the engine
    can (from 0.7.0; the commit of the reference could not)."""
    from estimation.core import resampling

    kwargs: dict[str, Any] = {"rng": rng, "n_boot": n_boot, "K": 3, "schemes": SCHEMES_BEFORE}
    try:
        return resampling.bootstrap(ranks, keep=SCHEMES_BEFORE, **kwargs)
    except TypeError:  # an engine before 0.7.0
        return resampling.bootstrap(ranks, **kwargs)


def _percentile_band(summary: Any) -> tuple[list[float], list[float]]:
    """The 95 % percentile band of the replicates: the interval of engines before 0.7.0,
    which then published it; from 0.7.0 it is recomputed from the kept replicates (the
    published interval became bias-corrected), so the refits stay compared as before."""
    replicates = getattr(summary, "replicates", None)
    if replicates is None:
        return summary.lower.tolist(), summary.upper.tolist()
    lower, upper = np.quantile(replicates, [0.025, 0.975], axis=0)
    return lower.tolist(), upper.tolist()


def _gapped_ranks(scores: np.ndarray) -> np.ndarray:
    """Ranks of the present scores of each dataset, NaN where a score is missing."""
    from scipy.stats import rankdata

    ranks = np.full(scores.shape, np.nan)
    for i, row in enumerate(scores):
        present = np.isfinite(row)
        ranks[i, present] = rankdata(-row[present])
    return ranks


if __name__ == "__main__":
    results = reference_results()
    if sys.argv[1:] == ["--floats"]:
        np.savez_compressed(DATA / "scale_reference.npz", **results["floats"])
    elif sys.argv[1:] == ["--refresh"]:
        with np.load(DATA / "scale_reference.npz") as stored:
            arrays = {key: stored[key] for key in stored.files}
        arrays.update({key: results["floats"][key] for key in REFRESHED if key in arrays})
        np.savez_compressed(DATA / "scale_reference.npz", **arrays)
        path = DATA / "scale_reference.json"
        reference = json.loads(path.read_text(encoding="utf-8"))
        for key in REFRESHED:
            if key in reference["digests"]:
                reference["digests"][key] = results["digests"][key]
        path.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    else:
        reference = {"digests": results["digests"], "values": results["values"]}
        json.dump(reference, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
