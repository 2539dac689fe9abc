"""The plain answer a leaderboard opens with, and the one order of its rows.

Pure functions over a typed :class:`~estimation.core.contract.Board`:

* :func:`board_order` is the order every view lists algorithms in: the estimator's
  P(win), then mean rank, then name; :func:`shared_positions` gives tied rows one rank.
* :func:`win_band` is the one place the interval quoted beside P(win) is read from: the
  exact confidence interval of the true P(win) beside every estimate of P(win) whose own
  bootstrap band is only a spread (the spread stays, secondary), the estimator's own
  interval beside a Borda score, a worth share or a minimax share.
* :func:`board_verdict` answers "who wins, and how sure are we" in a
  :class:`~estimation.core.contract.Verdict`: numbers and sentences that the page, the
  JSON export and the API's board section all carry; the first comes from the plausible
  winners (the confidence set of the best, ``Board.ranks``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from estimation.core.contract import (
    AdvisorSection,
    Board,
    BootstrapSummary,
    Evaluation,
    Friedman,
    NemenyiSummary,
    NotApplicable,
    PracticalLeader,
    RankIntervals,
    ScoreSummary,
    Verdict,
    WinInterval,
)
from estimation.core.practical import equivalence_sentence
from estimation.core.rank_inference import TIE_DIGITS
from estimation.core.registry import estimator_get
from estimation.core.wording import counted

__all__ = [
    "WinBand",
    "advisor_evidence",
    "board_order",
    "board_verdict",
    "evaluation_evidence",
    "leader_interval",
    "rank_span",
    "shared_positions",
    "win_band",
]


@dataclass(frozen=True)
class WinBand:
    """The interval of an estimator's P(win), per algorithm in the board's algorithm
    order, with the words readers see for it."""

    lower: tuple[float | None, ...]
    upper: tuple[float | None, ...]
    level: float
    kind: str  # "confidence" or "spread" (registry.Estimator.interval_kind)
    label: str  # e.g. "95 % bootstrap spread"
    # The band is the exact interval of the true P(win) from the win count, beside an
    # estimate that is not the win rate (which need not lie inside it); the estimate's
    # own bootstrap spread is then ``spread`` (None when there is none yet).
    of_true_p_win: bool = False
    spread: BootstrapSummary | None = None

    @property
    def words(self) -> str:
        return self.label

    def spread_words(self, index: int) -> str:
        """The secondary spread of one algorithm's estimate, in words ("" when none)."""
        if self.spread is None:
            return ""
        low, high = self.spread.lower[index], self.spread.upper[index]
        if low is None or high is None:
            return ""
        if round(low, 3) == round(high, 3):
            return f"the estimate ({self.spread.label}) barely varies over resamples"
        return f"{self.spread.label} of the estimate {low:.3f}–{high:.3f}"


def win_band(board: Board, estimator: str) -> WinBand | None:
    """The interval shown beside each P(win) of ``estimator``, or None when there is none:
    this is the only function that decides.

    The win rate's is the exact (Clopper-Pearson) interval on the tie-split win count
    (``board.win_interval``, labelled by its measured coverage; METHODS 6). Every other
    estimate of P(win) whose own bootstrap band is only a spread (no estimator's band
    reaches 0.93 coverage in every cell, and a spread is a point where the estimate never
    varies) is shown beside the same exact interval, labelled as the interval of the true
    P(win), with its own spread secondary (``WinBand.spread``). Where the exact interval
    does not apply, and for a Borda score, a worth share or a minimax share (no P(win)),
    the band is the estimator's own bootstrap interval (``EstimatorResult.bootstrap``),
    which contains its estimate and carries its label.
    """
    dedicated = board.win_interval
    boot = board.estimator(estimator).bootstrap
    if isinstance(dedicated, WinInterval):
        if estimator == "mle":
            return WinBand(
                dedicated.lower, dedicated.upper, dedicated.level, dedicated.kind, dedicated.label
            )
        entry = estimator_get(estimator)
        if entry.quantity == "P(win)" and entry.interval_kind == "spread":
            return WinBand(
                dedicated.lower,
                dedicated.upper,
                dedicated.level,
                dedicated.kind,
                f"{dedicated.label} of the true P(win)",
                of_true_p_win=True,
                spread=boot if isinstance(boot, BootstrapSummary) else None,
            )
    if isinstance(boot, BootstrapSummary):
        return WinBand(boot.lower, boot.upper, boot.level, boot.kind, boot.label)
    return None


def _own_band(band: WinBand | None) -> WinBand | None:
    """The estimate's own interval: ``band``, or its secondary spread when ``band`` is the
    true P(win)'s (None while the spread is being computed)."""
    if band is None or not band.of_true_p_win:
        return band
    spread = band.spread
    if spread is None:
        return None
    return WinBand(spread.lower, spread.upper, spread.level, spread.kind, spread.label)


def leader_interval(board: Board, estimator: str | None = None) -> tuple[float | None, ...]:
    """(lower, upper) of the leader's interval under ``estimator`` (None, None without one)."""
    key = estimator or board.recommended
    band = win_band(board, key)
    leader = board_order(board, key)[0]
    return (None, None) if band is None else (band.lower[leader], band.upper[leader])


def _probability(value: float | None) -> float:
    return 0.0 if value is None else round(value, TIE_DIGITS)


def _mean_ranks(board: Board) -> tuple[float | None, ...]:
    if isinstance(board.mean_rank, NotApplicable):
        return (None,) * len(board.algorithms)
    return board.mean_rank


def _rounded(values: Sequence[float | None]) -> np.ndarray:
    """P(win) as an array, None as 0, rounded so that float noise is no difference."""
    array = np.array([0.0 if v is None else v for v in values], dtype=float)
    return np.round(array, TIE_DIGITS)


def board_order(board: Board, estimator: str) -> list[int]:
    """Indices of the algorithms, most probable winner first; ties on P(win) go to the
    better mean rank, then to the name, so the order never depends on anything else
    (:meth:`Board.order`, the one rule)."""
    return board.order(estimator)


def shared_positions(board: Board, estimator: str, order: Sequence[int]) -> list[int]:
    """Each ordered row's position, equal P(win) sharing the best one (1, 2, 2, 4)."""
    p = _rounded(board.estimator(estimator).p)[list(order)]
    places = np.arange(1, len(order) + 1)
    starts = np.r_[True, p[1:] != p[:-1]] if len(order) else np.array([], dtype=bool)
    return np.maximum.accumulate(np.where(starts, places, 0)).tolist()


def rank_span(board: Board, index: int) -> str | None:
    """The rank interval of algorithm ``index`` as readers see it ("1–3", or "2" when it
    is one rank; the table's rank column and the badge, "#1–3", both show it), or None
    while the board has no rank intervals."""
    ranks = board.ranks
    if not isinstance(ranks, RankIntervals):
        return None
    low, high = ranks.lower[index], ranks.upper[index]
    return str(low) if low == high else f"{low}–{high}"


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _names(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    if len(names) > 6:
        return f"{', '.join(names[:5])} and {len(names) - 5} others"
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _values(values: Sequence[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _tied(
    board: Board, estimator: str, band: WinBand | None, leader: int, order: Sequence[int]
) -> list[int]:
    """Algorithms whose P(win) equals the leader's, or whose interval and the leader's
    each hold the other's point estimate (heavy overlap: the data cannot order them)."""
    raw = _values(board.estimator(estimator).p)
    rounded = _rounded(board.estimator(estimator).p)
    tied = rounded == rounded[leader]
    if band is not None:
        low, high = _values(band.lower), _values(band.upper)
        in_leaders = (raw >= low[leader]) & (raw <= high[leader])  # NaN compares False
        holds_leader = (raw[leader] >= low) & (raw[leader] <= high)
        tied |= in_leaders & holds_leader
    return [j for j in order[1:] if tied[j]]


def _indistinguishable(board: Board, leader: int) -> tuple[str | None, list[int]]:
    test, letters = board.letters()
    if test is None:
        return None, []
    names = board.algorithms
    own = set(letters[names[leader]])
    return test, [
        j for j in range(len(names)) if j != leader and own & set(letters.get(names[j], ""))
    ]


def _coverage(board: Board) -> str:
    facts = board.input
    used, total = facts.n_datasets_used, facts.n_datasets
    if used < total:
        text = f"from {used} of {counted(total, 'dataset')}"
    else:
        text = "from the one dataset" if total == 1 else f"from all {total} datasets"
    if facts.excluded_algorithms:
        n = len(facts.excluded_algorithms)
        text += f" ({counted(n, 'algorithm')} not ranked for lack of results)"
    return text


def _groups_note(board: Board) -> str | None:
    """Friedman finds a difference while Nemenyi keeps every algorithm in one group."""
    friedman, nemenyi = board.friedman, board.nemenyi
    if not isinstance(friedman, Friedman) or not isinstance(nemenyi, NemenyiSummary):
        return None
    if friedman.pvalue >= board.settings.alpha or isinstance(nemenyi.letters, NotApplicable):
        return None
    common = set.intersection(*(set(letters) for letters in nemenyi.letters))
    if not common:
        return None
    ranks = [r for r in _mean_ranks(board) if r is not None]
    gap = f"; the largest gap is {max(ranks) - min(ranks):.2f}" if ranks else ""
    return (
        f"Friedman's test finds that the algorithms differ overall (p = {friedman.pvalue:.3g}), "
        f"yet Nemenyi's test puts them all in one group: it compares each pair, is more "
        f"cautious, and no two mean ranks are further apart than its critical difference "
        f"({nemenyi.critical_difference:.2f}{gap}). The difference is spread over several "
        f"algorithms rather than between any two."
    )


def _label(key: str) -> str:
    return estimator_get(key).label


def _why(board: Board, others: dict[str, str], leader: int, rival: int) -> str:
    """Why two estimators pick different leaders, from what the board holds: win rates,
    the positions each estimator credits, mean ranks and mean scores."""
    names = board.algorithms
    win_rate, ranks = board.win_rate, _mean_ranks(board)
    if _probability(win_rate[rival]) > _probability(win_rate[leader]):
        outright, steady = rival, leader
    else:
        outright, steady = leader, rival
    # the estimators behind ``steady``: those that pick the rival, or those that do not
    backers = (
        [k for k, name in others.items() if name == names[rival]]
        if steady == rival
        else [
            k for k in board.estimator_keys if k not in others and not _tied_first(board, k, leader)
        ]
    )
    labels = _names([_label(k) for k in backers])
    credit = "credits" if len(backers) == 1 else "credit"
    if _probability(win_rate[outright]) == _probability(win_rate[steady]):
        text = f"{names[outright]} and {names[steady]} win equally often"
    else:
        text = (
            f"{names[outright]} wins more datasets outright (win rate "
            f"{_num(win_rate[outright], 2)} against {_num(win_rate[steady], 2)})"
        )
    whole = [k for k in backers if board.estimator(k).K is None]
    r_s, r_o = ranks[steady], ranks[outright]
    if whole and r_s is not None and r_o is not None and r_s < r_o:
        text += (
            f", while {names[steady]} ranks higher over whole rankings (mean rank "
            f"{r_s:.2f} against {r_o:.2f}), which {labels} {credit}"
        )
    elif backers:
        text += (
            f", while {names[steady]} takes more of the places just below first, "
            f"which {labels} also {credit}"
        )
    return text + _small_margins(board, outright, steady)


def _small_margins(board: Board, winner: int, other: int) -> str:
    """ ", so <winner> wins often by small margins" when its mean score is the worse."""
    scores = board.scores
    if not isinstance(scores, ScoreSummary):
        return ""
    mean_w, mean_o = scores.mean[winner], scores.mean[other]
    if mean_w is None or mean_o is None:
        return ""
    higher = board.input.direction == "higher"
    worse = mean_w < mean_o if higher else mean_w > mean_o
    if not worse:
        return ""
    return (
        f", yet its mean score is worse than {board.algorithms[other]}'s "
        f"({mean_w:.4g} against {mean_o:.4g}): "
        f"{board.algorithms[winner]} wins often by small margins and loses by large ones"
    )


def board_verdict(board: Board, estimator: str | None = None) -> Verdict | NotApplicable:
    """Who is most likely to win the next dataset under ``estimator`` (default: the
    recommended one), how sure that is, and whether the estimators agree."""
    key = estimator or board.recommended
    names = board.algorithms
    if not names:
        return NotApplicable("there are no ranked algorithms")
    order = board_order(board, key)
    leader = order[0]
    p = board.estimator(key).p
    band = win_band(board, key)
    low, high = (band.lower[leader], band.upper[leader]) if band else (None, None)
    # whether the estimates can be ordered is read from the estimate's own interval
    tied = _tied(board, key, _own_band(band), leader, order)
    test, same = _indistinguishable(board, leader)
    leaders = {k: names[board_order(board, k)[0]] for k in board.estimator_keys}
    boot = board.estimator(key).bootstrap
    p_best_leader = None
    if isinstance(boot, BootstrapSummary):
        in_order = _rounded(boot.p_best)[order]
        p_best_leader = names[order[int(np.argmax(in_order))]]
    a = names[leader]

    sentences = [
        _answer(board, key, a),
        _number_sentence(board, key, band, leader, tied),
        _test_sentence(test, same, names, a, board.ranks),
        _agreement_sentence(board, key, leaders, leader, p_best_leader),
    ]
    equivalent: tuple[str, ...] = ()
    if isinstance(board.practical, PracticalLeader) and board.practical.leader == a:
        practical, equivalent = equivalence_sentence(board.practical)
        if practical is not None:
            sentences.append(practical)
    evidence = _default_evidence(board, key)
    if evidence is not None:
        sentences.append(evidence)

    return Verdict(
        estimator=key,
        leader=a,
        probability=p[leader],
        lower=low,
        upper=high,
        interval=band.words if band else "",
        tied=tuple(names[j] for j in tied),
        indistinguishable=tuple(names[j] for j in same),
        test=test,
        leaders=leaders,
        p_best_leader=p_best_leader,
        sentences=tuple(sentences),
        groups_note=_groups_note(board),
        practically_equivalent=equivalent,
    )


def _number_sentence(
    board: Board, key: str, band: WinBand | None, leader: int, tied: list[int]
) -> str:
    """The leader's P(win) with its interval, and who it is tied with."""
    names = board.algorithms
    p = board.estimator(key).p
    a = names[leader]
    label = _label(key)
    low, high = (band.lower[leader], band.upper[leader]) if band else (None, None)
    interval = f" ({band.label} {_num(low)}–{_num(high)})" if band and low is not None else ""
    quantity = _quantity(key)
    exact = board.win_interval
    if quantity == "P(win)" and (band is None or band.kind != "confidence" or band.of_true_p_win):
        # A spread says how the estimate varies, not where the true P(win) is: the exact
        # interval from the win count is the confidence interval beside the headline.
        # (The estimate's own spread stays in the table, beside each P(win).)
        if isinstance(exact, WinInterval) and exact.lower[leader] is not None:
            interval = (
                f" ({exact.label} of the true P(win) {_num(exact.lower[leader])}–"
                f"{_num(exact.upper[leader])}, exact from its wins)"
            )
    if quantity == "P(win)":
        number = (
            f"{a} is the most likely to win the next dataset: P(win) {_num(p[leader])}"
            f"{interval}, by {label}"
        )
    else:
        number = f"{a} has the highest {quantity}, {_num(p[leader])}{interval}, by {label}"
    number += f", {_coverage(board)}."
    equal = [j for j in tied if _rounded(p)[j] == _rounded(p)[leader]]
    shown_ties = equal if isinstance(board.ranks, RankIntervals) else tied
    if shown_ties:
        spans = ", ".join(
            f"{names[j]} ({quantity} = {_num(p[j])}"
            + (f", {band.label} {_num(band.lower[j])}–{_num(band.upper[j])})" if band else ")")
            for j in shown_ties
        )
        how = (
            f"their {quantity} is equal" if shown_ties == equal else "the intervals overlap heavily"
        )
        number += f" It is a tie with {spans}: {how}, so the data cannot order them."
    return number


def _test_sentence(
    test: str | None,
    same: Sequence[int],
    names: Sequence[str],
    a: str,
    ranks: RankIntervals | NotApplicable,
) -> str:
    """Whether the test across datasets separates the leader from the others, and, where
    it keeps algorithms together that the set of the best has left out, why the two
    differ (one sentence, never "separates" and "cannot tell apart" of the same ones)."""
    if test is None:
        return "No test across datasets applies here, so none separates the leader."
    if len(same) == len(names) - 1:
        text = f"{test}'s test cannot tell any of the {len(names)} algorithms apart"
    elif same:
        text = f"{test}'s test cannot tell {a} apart from {_names([names[j] for j in same])}"
    else:
        return f"{test}'s test tells {a} apart from every other algorithm."
    out_of_set = (
        isinstance(ranks, RankIntervals)
        and ranks.question == "best_on_average"
        and any(names[j] not in ranks.plausible_winners for j in same)
    )
    if out_of_set:
        text += (
            ": it compares all pairs at once and ignores that the algorithms met on the "
            "same datasets, so it is more cautious than the paired comparisons behind the "
            "set of the best"
        )
    return text + "."


def _agreement_sentence(
    board: Board, key: str, leaders: dict[str, str], leader: int, p_best_leader: str | None
) -> str:
    """Whether the estimators agree on the leader (and why not), and what P(best) favours."""
    names = board.algorithms
    a = names[leader]
    boot = board.estimator(key).bootstrap
    # an estimator disagrees when the leader is not among its most probable (ties count)
    others = {
        k: v
        for k, v in leaders.items()
        if v != a
        and _probability(board.estimator(k).p[leader])
        < _probability(board.estimator(k).p[names.index(v)])
    }
    if not others:
        agreement = f"All {len(leaders)} estimators agree on {a}"
        shared = {
            k: [names[j] for j in _tied_first(board, k, leader)] for k in board.estimator_keys
        }
        shared = {k: v for k, v in shared.items() if v}
        if shared:
            agreement += (
                " ("
                + "; ".join(f"{_label(k)} ties it with {_names(v)}" for k, v in shared.items())
                + ")"
            )
        best_score = _best_score(board)
        margin = "" if best_score is None else _small_margins(board, leader, best_score)
        agreement += f"{margin}."
    else:
        by_leader: dict[str, list[str]] = {}
        for k, v in others.items():
            by_leader.setdefault(v, []).append(_label(k))
        rival_name = max(by_leader, key=lambda n: (len(by_leader[n]), -names.index(n)))
        rival = names.index(rival_name)
        picks = "; ".join(f"{n} by {_names(labels)}" for n, labels in by_leader.items())
        agreement = f"The estimators disagree on the leader: {picks}. Why: {_why(board, others, leader, rival)}."
    if p_best_leader is not None and p_best_leader != a and isinstance(boot, BootstrapSummary):
        j = names.index(p_best_leader)
        agreement += (
            f" P(best) favours {p_best_leader}: it has the highest P(win) in "
            f"{boot.p_best[j]:.0%} of bootstrap resamples, {a} in {boot.p_best[leader]:.0%}."
        ).replace("%", " %")
    return agreement


def _either(names: Sequence[str]) -> str:
    """ "A, B or C" (a long list: the first five and how many more)."""
    names = list(names)
    if len(names) > 6:
        return f"one of {', '.join(names[:5])} and {len(names) - 5} others"
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _answer(board: Board, key: str, leader: str) -> str:
    """The verdict's first sentence: the confidence set of the best for the question the
    board's rank intervals answer (``RankIntervals.question_words``), one name only when
    the set has one member; without rank intervals, a sentence that claims no single
    winner."""
    ranks = board.ranks
    if isinstance(ranks, NotApplicable):
        return (
            f"{leader} has the highest estimated {_quantity(key)} by {_label(key)}; no rank "
            f"intervals say whether the data separate it from the others ({ranks.reason})."
        )
    level = f"{ranks.level:.0%}".replace("%", " %")
    winners = ranks.plausible_winners
    question = ranks.question_words
    if len(winners) == 1:
        return (
            f"With {level} confidence {winners[0]} is the {question}: no other algorithm "
            f"is a plausible best."
        )
    if len(winners) == len(board.algorithms):
        return (
            f"With {level} confidence the {question} is {_either(winners)}: the data cannot "
            f"separate any of the {len(winners)} algorithms."
        )
    return (
        f"With {level} confidence the {question} is {_either(winners)}{_separating(board, ranks)}."
    )


def _separating(board: Board, ranks: RankIntervals) -> str:
    """ "; roughly N datasets like these would single out A" (validity kept the set
    large: how much more data would make it one), else ": the data cannot order them
    further"."""
    needed = ranks.separating_datasets
    if needed is None or isinstance(board.mean_rank, NotApplicable):
        return ": the data cannot order them further"
    ranks_now = [np.inf if r is None else r for r in board.mean_rank]
    leader = board.algorithms[int(np.argmin(ranks_now))]
    return f"; roughly {needed} datasets like these would single out {leader}"


def _quantity(key: str) -> str:
    return estimator_get(key).quantity


def _default_stands(key: str) -> str:
    """Why the default stands when the evidence favours another estimator (one wording
    for the evaluation's sentence and the advisor's)."""
    short = estimator_get(key).short_label
    return (
        f"{short} stays the default because a rule fixed before the data are seen "
        "chooses it, not the data it is judged on"
    )


def _default_evidence(board: Board, key: str) -> str | None:
    """One sentence on what the held-out evaluation says about the default estimator, and
    why the default stands when it favours another (the rule in board.recommended_by)."""
    evaluation = board.evaluation
    if key != board.recommended or not isinstance(evaluation, Evaluation):
        return None
    short = estimator_get(key).short_label
    best = evaluation.predicts_best
    if best == key:
        return f"The held-out evaluation agrees: {short} predicts held-out winners best here."
    if best is not None:
        ours, theirs = evaluation.log_loss.get(key), evaluation.log_loss.get(best)
        losses = (
            f" (held-out log loss {_num(theirs)} against {_num(ours)})"
            if ours is not None and theirs is not None
            else ""
        )
        return (
            f"The held-out evaluation finds that {estimator_get(best).short_label} predicts "
            f"better than the win rate here{losses}; {_default_stands(key)}."
        )
    if key == "mle":
        return None
    return (
        f"The held-out evaluation finds no estimator predicting clearly better than the win "
        f"rate here; {_default_stands(key)}."
    )


def evaluation_evidence(board: Board) -> str | None:
    """The sentence on how the held-out evaluation relates to the board's recommended
    estimator (the one the verdict adds when it speaks of that estimator); None without
    an evaluation, or when the win rate is recommended and nothing beats it."""
    return _default_evidence(board, board.recommended)


def advisor_evidence(board: Board, advisor: AdvisorSection) -> str | None:
    """The sentence shown beside the advisor's table about the board's default estimator:
    what the simulations at this benchmark's size found, and why the default stands when
    they favour another. None when the advisor has no simulations at this size."""
    key = board.recommended
    short = estimator_get(key).short_label
    # The mixture truth is no candidate's own model (the Plackett-Luce truth is the
    # Plackett-Luce estimator's, the empirical one the win rate's): it alone decides,
    # where the advisor has it (engines from 0.8.0).
    truths = [t for t in advisor.truths if t.truth == "mixture"] or list(advisor.truths)
    found = {truth.truth: size.best for truth in truths for size in truth.sizes if size.factor == 1}
    if not found:
        return None
    others = sorted({best for best in found.values() if best != key})
    if not others:
        return f"The advisor's simulations agree: {short} is closest to the truth at this size."
    names = _names([estimator_get(k).short_label for k in others])
    verb = "comes" if len(others) == 1 else "come"
    return (
        f"In the advisor's simulations at this size {names} {verb} closer to the truth "
        f"(lowest mean KL error); {_default_stands(key)}."
    )


def _tied_first(board: Board, estimator: str, leader: int) -> list[int]:
    """Other algorithms with the leader's P(win) under ``estimator``, when it is the top."""
    p = _rounded(board.estimator(estimator).p)
    if p[leader] != p.max():
        return []
    return [j for j in np.flatnonzero(p == p[leader]).tolist() if j != leader]


def _best_score(board: Board) -> int | None:
    scores = board.scores
    if not isinstance(scores, ScoreSummary):
        return None
    present = [i for i, v in enumerate(scores.mean) if v is not None]
    if not present:
        return None
    sign = 1.0 if board.input.direction == "higher" else -1.0
    return max(present, key=lambda i: sign * scores.mean[i])  # type: ignore[operator]
