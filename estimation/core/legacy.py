"""The pre-contract payload shape (engine 0.3), built from the typed sections.

Transitional: readers not yet converted to the typed sections read this shape. It is
deleted once every reader reads :mod:`estimation.core.contract` objects.
"""

from __future__ import annotations

from typing import Any

from estimation.core.contract import NotApplicable, PairwiseMatrix, SnapshotPayload, to_json
from estimation.core.registry import estimator_get


def _na(value: Any) -> dict[str, str]:
    return {"not_applicable": value.reason}


def _pairwise(matrix: PairwiseMatrix, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    m = len(names)
    return {
        a: {b: matrix.get(i, j, m) for j, b in enumerate(names) if j != i}
        for i, a in enumerate(names)
    }


def legacy_payload(payload: SnapshotPayload, timings: dict[str, float]) -> dict[str, Any]:
    board = payload.board
    names = board.algorithms

    def labelled(values: Any) -> dict[str, Any]:
        return dict(zip(names, values, strict=True))

    facts = board.input
    estimators: dict[str, Any] = {}
    for result in sorted(
        board.estimators,
        key=lambda r: ("mle", "loo_kl", "loo_tv", "minimax").index(r.key)
        if r.key in ("mle", "loo_kl", "loo_tv", "minimax")
        else 4,
    ):
        entry: dict[str, Any] = {}
        if result.weights is not None:
            entry.update(method=result.key, K=result.K, weights=list(result.weights))
        entry["p"] = labelled(result.p)
        for key in (
            "loss",
            "loss_mle",
            "n_clipped",
            "n_terms",
            "bound",
            "bound_mle",
            "bound_k2",
            "log_likelihood",
            "iterations",
            "converged",
            "prior_strength",
        ):
            value = getattr(result, key)
            if value is not None or (key.startswith("loss") and result.key.startswith("loo")):
                entry[key] = value
        entry["label"] = estimator_get(result.key).label
        if isinstance(result.bootstrap, NotApplicable):
            entry.update(ci=None, p_best=None)
            if result.bootstrap.reason.startswith("a single dataset"):
                entry["ci_note"] = result.bootstrap.reason
        else:
            boot = result.bootstrap
            entry["ci"] = {
                a: [lo, hi] for a, lo, hi in zip(names, boot.lower, boot.upper, strict=True)
            }
            entry["p_best"] = labelled(boot.p_best)
        estimators[result.key] = entry

    out: dict[str, Any] = {
        "engine_version": board.engine_version,
        "input": {
            "kind": facts.kind,
            "missing": board.settings.missing,
            "tie_tol": board.settings.tie_tol,
            "min_coverage": board.settings.min_coverage,
            "n_datasets_total": facts.n_datasets,
            "n_datasets_used": facts.n_datasets_used,
            "n_algorithms_used": len(names),
            "algorithms": list(names),
            "datasets": list(facts.datasets),
            "excluded_algorithms": [
                {"algorithm": e.algorithm, "coverage": e.coverage}
                for e in facts.excluded_algorithms
            ],
            "dropped_datasets": list(facts.dropped_datasets),
            "dropped_by": dict(facts.dropped_by),
            "known_positions": facts.known_positions,
            "n_datasets": facts.n_datasets,
            "excluded_coverage": {e.algorithm: e.coverage for e in facts.excluded_algorithms},
            "direction": facts.direction,
            "has_folds": facts.has_folds,
            "n_tied_first": facts.n_tied_first,
        },
        "params": {**board.settings.to_dict(), "k_used": board.k_used},
        "recommended": board.recommended,
        "estimators": estimators,
        "mean_rank": None
        if isinstance(board.mean_rank, NotApplicable)
        else labelled(board.mean_rank),
        "win_rate": labelled(board.win_rate),
        "pairwise_wins": _pairwise(payload.wins.wins, names),
    }
    out["friedman"] = (
        _na(board.friedman)
        if isinstance(board.friedman, NotApplicable)
        else to_json(board.friedman)
    )
    nemenyi, summary = payload.nemenyi, board.nemenyi
    if isinstance(nemenyi, NotApplicable) or isinstance(summary, NotApplicable):
        out["nemenyi"] = _na(summary if isinstance(summary, NotApplicable) else nemenyi)
    else:
        out["nemenyi"] = {
            "alpha": summary.alpha,
            "q_alpha": summary.q_alpha,
            "critical_difference": summary.critical_difference,
            "pvalues": _pairwise(nemenyi.pvalues, names),
            "groups": [[names[i] for i in bar] for bar in nemenyi.groups],
            "letters": labelled(summary.letters),
        }
    wilcoxon, wsummary = payload.wilcoxon, board.wilcoxon
    if isinstance(wilcoxon, NotApplicable) or isinstance(wsummary, NotApplicable):
        out["wilcoxon"] = _na(wsummary if isinstance(wsummary, NotApplicable) else wilcoxon)
    else:
        out["wilcoxon"] = {
            "alpha": wsummary.alpha,
            "correction": wsummary.correction,
            "pvalues": _pairwise(wilcoxon.pvalues, names),
            "pvalues_raw": _pairwise(wilcoxon.pvalues_raw, names),
            "rank_biserial": _pairwise(wilcoxon.rank_biserial, names),
            "groups": [[names[i] for i in bar] for bar in wilcoxon.groups],
            "letters": labelled(wsummary.letters),
            "not_applicable_pairs": [
                {"a": names[p.a], "b": names[p.b], "reason": p.reason}
                for p in wilcoxon.not_applicable_pairs
            ],
        }
    within = payload.within_dataset
    if isinstance(within, NotApplicable):
        out.update(significance_rank=None, within_dataset=_na(within), within_dataset_note=None)
    else:
        per_dataset: dict[str, Any] = {}
        m = len(names)
        for tests in within.datasets:
            item: dict[str, Any] = {
                "significance_rank": labelled(tests.significance_rank),
                "n_folds": tests.n_folds,
            }
            if isinstance(tests.tukey, NotApplicable):
                item["not_applicable"] = tests.tukey.reason
            elif tests.tukey is not None:
                t = tests.tukey
                rows = []
                k = 0
                for i in range(m):
                    for j in range(i + 1, m):
                        rows.append(
                            {
                                "a": names[i],
                                "b": names[j],
                                "diff": t.diff[k],
                                "cohens_d": t.cohens_d[k],
                                "pvalue": t.pvalue[k],
                                "significant": t.significant[k],
                                "wilcoxon_pvalue": t.wilcoxon_pvalue[k],
                                "rank_biserial": t.rank_biserial[k],
                            }
                        )
                        k += 1
                item["tukey"] = rows
            per_dataset[tests.dataset] = item
        out.update(
            significance_rank=None
            if isinstance(board.significance_rank, NotApplicable)
            else labelled(board.significance_rank),
            within_dataset=per_dataset,
            within_dataset_note=within.note,
        )
    evaluation = board.evaluation
    out["evaluation"] = (
        _na(evaluation) if isinstance(evaluation, NotApplicable) else to_json(evaluation)
    )
    matrix = payload.rank_matrix
    out["rank_matrix"] = (
        None
        if isinstance(matrix, NotApplicable)
        else {
            "datasets": list(matrix.datasets),
            "algorithms": list(matrix.algorithms),
            "ranks": [list(row) for row in matrix.ranks],
        }
    )
    out["notes"] = list(board.notes)
    out["timings"] = dict(timings)
    return out
