"""A readable terminal report of an analysis payload (what ``manage.py analyze`` prints)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SCHEME_ORDER = ("loo_kl", "loo_tv", "minimax", "mle", "borda", "plackett_luce")
MAX_MATRIX_ALGORITHMS = 12


def _number(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}"


def _pvalue(value: Any) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """A plain text table; ``align`` has one of '<' or '>' per column."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{cell:{a}{w}}" for cell, a, w in zip(cells, align, widths, strict=True)
        ).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(row) for row in rows)]


def render_report(payload: dict[str, Any], *, source: str = "") -> str:
    facts = payload["input"]
    algorithms = facts["algorithms"]
    estimators = payload["estimators"]
    recommended = payload["recommended"]
    head = estimators[recommended]
    lines = [f"Podium analysis{f' of {source}' if source else ''}", ""]
    direction = {"higher": "higher is better", "lower": "lower is better", "rank": "rankings"}
    lines.append(
        f"{facts['n_datasets_used']} of {facts['n_datasets']} datasets used, "
        f"{len(algorithms)} algorithms, {direction[facts['direction']]}, "
        f"{'with' if facts['has_folds'] else 'no'} folds."
    )
    lines.extend(f"Note: {note}" for note in payload["notes"])
    lines.append("")

    weights = head.get("weights")
    weight_text = f", weights {' '.join(f'{w:.3f}' for w in weights)}" if weights else ""
    lines.append(f"Probability of winning a new dataset: {head['label']}{weight_text}")
    letters = (payload["nemenyi"] if "letters" in payload["nemenyi"] else payload["wilcoxon"]).get(
        "letters", {}
    )
    order = sorted(algorithms, key=lambda a: -(head["p"][a] or 0.0))
    rows = []
    for position, name in enumerate(order, start=1):
        ci = (head.get("ci") or {}).get(name)
        rows.append(
            [
                str(position),
                name,
                _number(head["p"][name]),
                f"[{_number(ci[0])}, {_number(ci[1])}]" if ci else "n/a",
                _number((head.get("p_best") or {}).get(name)),
                _number(payload["win_rate"][name]),
                _number((payload["mean_rank"] or {}).get(name), 2),
                _number((payload["significance_rank"] or {}).get(name), 2),
                letters.get(name, ""),
            ]
        )
    lines += _table(
        [
            "#",
            "algorithm",
            "P(win)",
            "95% interval",
            "P(best)",
            "win rate",
            "mean rank",
            "signif. rank",
            "group",
        ],
        rows,
        "><>>>>>><",
    )
    lines.append("")

    lines.append("All estimators (probability of winning)")
    schemes = [s for s in SCHEME_ORDER if s in estimators]
    rows = [[name, *(_number(estimators[s]["p"][name]) for s in schemes)] for name in order]
    lines += _table(["algorithm", *schemes], rows, "<" + ">" * len(schemes))
    minimax = estimators.get("minimax", {})
    if minimax.get("bound") is not None:
        lines.append(f"Minimax worst-case TV bound: {_number(minimax['bound'])}")
    lines.append("")

    lines += _tests_section(payload, algorithms)
    lines += _evaluation_section(payload)
    return "\n".join(lines).rstrip() + "\n"


def _tests_section(payload: dict[str, Any], algorithms: Sequence[str]) -> list[str]:
    lines = ["Tests across datasets"]
    friedman = payload["friedman"]
    if "not_applicable" in friedman:
        lines.append(f"  Friedman: not applicable ({friedman['not_applicable']})")
    else:
        lines.append(
            f"  Friedman chi2 = {_number(friedman['statistic'])} (uncorrected "
            f"{_number(friedman['statistic_uncorrected'])}), p = {_pvalue(friedman['pvalue'])}; "
            f"Iman-Davenport F = {_number(friedman['iman_davenport'])}, "
            f"p = {_pvalue(friedman['iman_davenport_pvalue'])}"
        )
    nemenyi = payload["nemenyi"]
    if "not_applicable" in nemenyi:
        lines.append(f"  Nemenyi: not applicable ({nemenyi['not_applicable']})")
    else:
        groups = "; ".join(", ".join(g) for g in nemenyi["groups"] if len(g) > 1) or "none"
        lines.append(
            f"  Nemenyi critical difference {_number(nemenyi['critical_difference'])} "
            f"(alpha {nemenyi['alpha']}); indistinguishable groups: {groups}"
        )
    wilcoxon = payload["wilcoxon"]
    if "not_applicable" in wilcoxon:
        lines.append(f"  Wilcoxon: not applicable ({wilcoxon['not_applicable']})")
    elif len(algorithms) <= MAX_MATRIX_ALGORITHMS:
        lines.append(f"  Wilcoxon signed-rank, {wilcoxon['correction']}-corrected p-values:")
        rows = [
            [a, *("-" if a == b else _pvalue(wilcoxon["pvalues"][a][b]) for b in algorithms)]
            for a in algorithms
        ]
        lines += [
            "    " + row for row in _table(["", *algorithms], rows, "<" + ">" * len(algorithms))
        ]
    else:
        lines.append(
            f"  Wilcoxon signed-rank ({wilcoxon['correction']}): {len(algorithms)} algorithms; "
            "see --json for the pairwise p-values."
        )
    within = payload["within_dataset"]
    if "not_applicable" in within:
        lines.append(f"  Within datasets: not applicable ({within['not_applicable']})")
    else:
        lines.append(
            "  Within datasets (repeated-measures Tukey on folds): significance-aware mean "
            "rank shown above."
        )
    lines.append("")
    return lines


def _evaluation_section(payload: dict[str, Any]) -> list[str]:
    evaluation = payload["evaluation"]
    if "not_applicable" in evaluation:
        return [f"Which estimator predicts best: not applicable ({evaluation['not_applicable']})"]
    folds = (
        "leave-one-out"
        if evaluation["leave_one_out"]
        else f"{evaluation['n_folds']}-fold x {evaluation['n_repeats']}"
    )
    lines = [f"Which estimator predicts best here ({folds} over datasets; lower is better)"]
    schemes = sorted(evaluation["log_loss"], key=lambda s: evaluation["log_loss"][s])
    rows = [
        [
            s,
            _number(evaluation["log_loss"][s]),
            _pvalue(evaluation["pvalue_vs_best"].get(s)) if s != evaluation["best"] else "best",
            _number(evaluation["tv"][s]),
        ]
        for s in schemes
    ]
    lines += _table(["scheme", "log loss", "p vs best", "TV loss"], rows, "<>>>")
    return lines
