"""The verdict and the board's one order (estimation/core/verdict.py), on the demos."""

from __future__ import annotations

from dataclasses import replace

from estimation.core.contract import BootstrapSummary, NotApplicable, Verdict
from estimation.core.verdict import (
    advisor_evidence,
    board_order,
    board_verdict,
    leader_interval,
    rank_span,
    shared_positions,
    win_band,
)
from tests.core.demo_tables import demo_analysis


def _board(name):
    return demo_analysis(name).payload.board


def test_demsar_estimators_disagree_and_the_verdict_says_why():
    board = _board("demsar")
    verdict = board.verdict
    assert isinstance(verdict, Verdict) and verdict == board_verdict(board)
    assert verdict.leader == "C4.5+m" and verdict.estimator == "loo_kl"
    assert verdict.leaders["mle"] == verdict.leaders["plackett_luce"] == "C4.5+m+cf"
    text = " ".join(verdict.sentences)
    assert "The estimators disagree on the leader" in text
    assert "wins more datasets outright (win rate 0.45 against 0.30)" in text
    # n = 14: LOO (log loss)'s own intervals of the leader and C4.5+m+cf each hold the
    # other's point; the answer is the set of the best on average across datasets: the
    # paired comparisons of ranks leave out C4.5+cf and C4.5 (the comparison with a
    # control calls C4.5 worse, Holm p 0.039), Nemenyi's looser test does not
    assert verdict.tied == ("C4.5+m+cf",)
    assert board.ranks.plausible_winners == ("C4.5+m", "C4.5+m+cf")
    assert verdict.sentences[0] == (
        "With 95 % confidence the best on average across datasets is C4.5+m or C4.5+m+cf; "
        "roughly 1739 datasets like these would single out C4.5+m+cf."
    )
    assert board.ranks.separating_datasets == 1739
    assert verdict.test == "Nemenyi" and len(verdict.indistinguishable) == 3
    assert "more cautious than the paired comparisons" in verdict.sentences[2]
    # the quoted interval is the accessor's, whichever interval the board carries
    low, high = leader_interval(board)
    assert (verdict.lower, verdict.upper) == (low, high)
    assert "bootstrap spread" not in verdict.sentences[1]  # the table has it, beside P(win)
    exact = board.win_interval
    leader = board.algorithms.index("C4.5+m")
    assert (
        f"95 % confidence interval of the true P(win) {exact.lower[leader]:.3f}–"
        f"{exact.upper[leader]:.3f}" in verdict.sentences[1]
    )
    assert "Friedman's test finds" in verdict.groups_note
    assert "inf" not in text.split() and "nan" not in text.lower().split()


def test_simulated_all_agree_but_small_margins_are_named():
    verdict = _board("simulated").verdict
    assert verdict.leader == "new" and len(set(verdict.leaders.values())) == 1
    assert "wins often by small margins" in verdict.sentences[3]
    assert verdict.groups_note is None


def test_p_best_disagreeing_with_p_win_is_said():
    board = _board("simulated")
    result = board.estimator("loo_kl")
    boot = result.bootstrap
    assert isinstance(boot, BootstrapSummary)
    names = board.algorithms
    flipped = tuple(0.7 if n == "old" else 0.1 for n in names)
    changed = replace(result, bootstrap=replace(boot, p_best=flipped))
    board = replace(
        board, estimators=tuple(changed if e.key == "loo_kl" else e for e in board.estimators)
    )
    verdict = board_verdict(board)
    assert verdict.p_best_leader == "old"
    assert "P(best) favours old" in verdict.sentences[3]


def test_order_is_deterministic_and_ties_share_a_position():
    board = _board("demsar")
    # loo_tv gives C4.5+m and C4.5+m+cf the same P(win): the better mean rank goes first
    order = board_order(board, "loo_tv")
    names = [board.algorithms[i] for i in order]
    assert names[:2] == ["C4.5+m+cf", "C4.5+m"]
    assert shared_positions(board, "loo_tv", order)[:3] == [1, 1, 3]
    assert win_band(board, "loo_tv") is not None


def test_a_last_digit_difference_decides_no_leader():
    """Two P(win) equal but for float noise are one value: the leader is the better mean
    rank, both share position 1, and the verdict calls it a tie (estimation rounding rule:
    rank_inference.TIE_DIGITS)."""
    board = _board("demsar")
    names = board.algorithms
    mle = board.estimator("mle")
    a, b = names.index("C4.5+m"), names.index("C4.5+m+cf")
    p = list(mle.p)
    p[a], p[b] = 0.375 + 1e-15, 0.375  # C4.5+m+cf has the better mean rank (1.93)
    p = [v if i in (a, b) else (1 - 0.75) / 2 for i, v in enumerate(p)]
    changed = replace(mle, p=tuple(p))
    board = replace(
        board,
        recommended="mle",
        estimators=tuple(changed if e.key == "mle" else e for e in board.estimators),
    )
    order = board_order(board, "mle")
    assert names[order[0]] == "C4.5+m+cf" and board.top(1, "mle") == ["C4.5+m+cf"]
    assert shared_positions(board, "mle", order)[:2] == [1, 1]
    verdict = board_verdict(board)
    assert verdict.leader == "C4.5+m+cf" and "C4.5+m" in verdict.tied


def test_rank_span_reads_the_rank_intervals():
    board = _board("simulated")
    assert board.algorithms == ("baseline", "legacy", "new", "old")
    assert board.ranks.lower == (2, 3, 1, 1) and board.ranks.upper == (3, 4, 4, 2)
    assert [rank_span(board, i) for i in range(4)] == ["2–3", "3–4", "1–4", "1–2"]
    one = replace(board.ranks, lower=(3, 4, 1, 2), upper=(3, 4, 1, 2))
    assert rank_span(replace(board, ranks=one), 2) == "1"
    assert rank_span(replace(board, ranks=NotApplicable("being computed")), 0) is None


def test_the_advisor_sentence_is_about_the_default_and_says_why_it_stands():
    analysis = demo_analysis("demsar")
    board, advisor = analysis.payload.board, analysis.payload.advisor
    # at n = 14 the simulations from the mixture truth (the one the sentence reads: no
    # candidate's own model) favour Plackett-Luce, not the default
    text = advisor_evidence(board, advisor)
    assert text.startswith("In the advisor's simulations at this size Plackett–Luce comes")
    assert text.endswith(
        "LOO (log loss) stays the default because a rule fixed before the "
        "data are seen chooses it, not the data it is judged on."
    )
    agreeing = replace(
        advisor,
        truths=tuple(
            replace(t, sizes=tuple(replace(s, best="loo_kl") for s in t.sizes))
            for t in advisor.truths
        ),
    )
    assert advisor_evidence(board, agreeing) == (
        "The advisor's simulations agree: LOO (log loss) is closest to the truth at this size."
    )
