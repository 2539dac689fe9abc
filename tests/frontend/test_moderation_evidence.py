"""Moderation with evidence: scores beside the leaders', rank, flags; bulk decisions."""

from __future__ import annotations

import re

import pytest

from frontend.contribute.selectors import moderation_evidence
from leaderboard.models import Submission
from leaderboard.moderation import evidence_for
from leaderboard.services import (
    PermissionDenied,
    ValidationFailed,
    submission_accept,
    submissions_decide,
)
from tests.factories import make_benchmark, make_submission, make_user
from tests.frontend.uneven_folds import (
    UNEVEN_FOLDS,
    engine_values,
    submit_folds,
    uneven_folds_benchmark,
)

ACCEPTED = {
    "A": {"d1": 0.80, "d2": 0.70, "d3": 0.90, "d4": 0.60},
    "B": {"d1": 0.60, "d2": 0.75, "d3": 0.85, "d4": 0.65},
    "C": {"d1": 0.70, "d2": 0.72, "d3": 0.80, "d4": 0.50},
}


def test_a_plausible_result_gets_its_rank_and_no_flag():
    evidence = evidence_for(
        metric="auc",
        higher_is_better=True,
        submission={"d1": 0.85, "d2": 0.74, "d3": 0.88, "d4": 0.66},
        accepted=ACCEPTED,
    )
    assert evidence.flags == ()
    # Ranks per dataset: d1 1, d2 2, d3 2, d4 1 -> mean 1.5; A 2.25, B 2.5, C 3.75.
    assert (evidence.rank, evidence.n_ranked) == (1, 4)
    d1 = evidence.rows[0]
    assert (d1.leader, d1.leader_value, d1.beats_leader) == ("A", 0.80, True)
    assert (d1.low, d1.high) == (0.60, 0.80)


def test_lower_is_better_ranks_the_other_way():
    evidence = evidence_for(
        metric="error",
        higher_is_better=False,
        submission={"d1": 0.1, "d2": 0.1},
        accepted={"A": {"d1": 0.2, "d2": 0.3}, "B": {"d1": 0.3, "d2": 0.2}},
    )
    assert evidence.rank == 1 and evidence.rows[0].leader == "A"


@pytest.mark.parametrize(
    ("values", "flag"),
    [
        ({"d1": 1.0, "d2": 1.0, "d3": 1.0, "d4": 1.0}, "perfect score on every dataset"),
        ({"d1": 0.7, "d2": 0.7, "d3": 0.7, "d4": 0.7}, "the same value (0.7) on every dataset"),
        (
            {"d1": 0.8, "d2": 0.7, "d3": 7.5, "d4": 0.6},
            "far outside the accepted algorithms' range on 1 dataset",
        ),
        (dict(ACCEPTED["B"]), "identical to the scores of B"),
    ],
)
def test_suspicious_results_are_flagged(values, flag):
    evidence = evidence_for(
        metric="auc", higher_is_better=True, submission=values, accepted=ACCEPTED
    )
    assert flag in evidence.flags


# --- the page and the bulk service ----------------------------------------------------------


@pytest.fixture
def queue(db):
    maintainer = make_user("maintainer")
    benchmark = make_benchmark("study")
    benchmark.maintainers.add(maintainer)
    for name, values in ACCEPTED.items():
        submission_accept(submission=make_submission(benchmark, name, values), user=maintainer)
    pending = [
        make_submission(benchmark, "Perfect", {d: 1.0 for d in ACCEPTED["A"]}),
        make_submission(benchmark, "Fair", {"d1": 0.85, "d2": 0.74, "d3": 0.88, "d4": 0.66}),
        make_submission(benchmark, "Copy", dict(ACCEPTED["C"])),
    ]
    return benchmark, maintainer, pending


def test_the_moderation_page_shows_scores_rank_metric_and_flags(client, queue):
    _, maintainer, _ = queue
    client.force_login(maintainer)
    page = client.get("/b/study/maintain/moderation/").content.decode()
    assert page.count('data-testid="moderation-item"') == 3
    assert page.count('data-testid="moderation-metric">score<') == 3
    assert "perfect score on every dataset" in page
    assert "identical to the scores of C" in page
    assert "Would rank <strong>1</strong> of 4" in page
    assert page.count('data-testid="moderation-flag"') >= 3


def test_bulk_accept_and_reject_with_a_note(client, queue):
    _, maintainer, (perfect, fair, copy) = queue
    client.force_login(maintainer)
    response = client.post(
        "/b/study/maintain/moderation/bulk/",
        {"submission": [perfect.pk, copy.pk], "decision": "reject", "note": "Implausible."},
    )
    assert response.status_code == 302
    statuses = dict(Submission.objects.values_list("algorithm__name", "status"))
    assert statuses["Perfect"] == statuses["Copy"] == "rejected" and statuses["Fair"] == "pending"
    assert set(
        Submission.objects.filter(status="rejected").values_list("decision_note", flat=True)
    ) == {"Implausible."}
    client.post(
        "/b/study/maintain/moderation/bulk/", {"submission": [fair.pk], "decision": "accept"}
    )
    assert Submission.objects.get(pk=fair.pk).status == "accepted"


def test_bulk_is_all_or_nothing_and_for_maintainers_only(queue):
    benchmark, maintainer, (perfect, fair, _) = queue
    submission_accept(submission=fair, user=maintainer)
    with pytest.raises(ValidationFailed, match=r"Fair \(#\d+\) is accepted, not pending"):
        submissions_decide(
            benchmark=benchmark, user=maintainer, ids=[perfect.pk, fair.pk], accept=False
        )
    assert Submission.objects.get(pk=perfect.pk).status == "pending"
    with pytest.raises(ValidationFailed, match="not one of this benchmark's"):
        submissions_decide(benchmark=benchmark, user=maintainer, ids=[10**9], accept=True)
    with pytest.raises(PermissionDenied):
        submissions_decide(
            benchmark=benchmark, user=make_user("stranger"), ids=[perfect.pk], accept=True
        )


def test_evidence_reads_the_engines_fold_means_with_uneven_folds(db):
    """A maintainer weighs a submission by the values the analysis will use: the engine's
    fold means (exact summation), for the accepted algorithms and for the pending one, so
    folds 0.8 and 0.9 tie with 0.85 on d1 instead of beating it by 1e-16. A dataset
    given both without and with folds counts by its folds, as in the analysis."""
    benchmark = uneven_folds_benchmark(
        folds={"b": UNEVEN_FOLDS["b"], "c": {"d1": {0: 0.3, 1: 0.2, 2: 0.1}}}
    )
    pending = submit_folds(
        benchmark,
        "new",
        {"d1": {0: 0.8, 1: 0.9}, "d2": {1: 0.1, 2: 0.2, 0: 0.3}, "d3": {None: 0.9, 0: 0.4}},
        accept=False,
    )
    (evidence,) = moderation_evidence(benchmark=benchmark, submissions=[pending])[pending.pk]
    accepted = engine_values(benchmark)
    rows = {row.dataset: row for row in evidence.rows}
    for dataset, row in rows.items():
        leader_values = {by[dataset] for by in accepted.values() if dataset in by}
        assert row.leader_value == max(leader_values), dataset
    d1 = rows["d1"]
    assert (d1.value, d1.leader, d1.leader_value, d1.beats_leader) == (0.85, "b", 0.85, False)
    submission_accept(submission=pending)
    assert {row.dataset: row.value for row in evidence.rows} == engine_values(benchmark)["new"]


def test_bulk_select_all_decides_every_submission_the_page_showed(client, queue):
    benchmark, maintainer, shown = queue
    client.force_login(maintainer)
    page = client.get("/b/study/maintain/moderation/").content.decode()
    assert 'data-testid="moderation-select-all"' in page and "All 3 shown below" in page
    listed = re.findall(r'<input type="hidden" name="shown" value="(\d+)">', page)
    assert sorted(map(int, listed)) == sorted(s.pk for s in shown)
    late = make_submission(benchmark, "Late", {"d1": 0.5})  # arrives after the page was read
    client.post(
        "/b/study/maintain/moderation/bulk/",
        {"shown": listed, "all_shown": "1", "decision": "reject", "note": "batch"},
    )
    assert set(
        Submission.objects.filter(pk__in=[s.pk for s in shown]).values_list("status", flat=True)
    ) == {"rejected"}
    assert Submission.objects.get(pk=late.pk).status == "pending"
