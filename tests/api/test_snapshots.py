import json

import pytest

from estimation.core.contract import (
    SECTION_NAMES,
    json_schema,
    pair_index,
    section_from_json,
    to_json,
)
from estimation.core.registry import estimator_get
from estimation.core.verdict import board_order
from estimation.models import ResultSnapshot
from estimation.selectors import snapshot_board, snapshot_section
from estimation.services import snapshot_refresh
from leaderboard.services import submission_accept
from tests.contract_validation import validate_section
from tests.engine_memo import engine_results_remembered
from tests.factories import hold_recompute_lease, make_submission

pytestmark = pytest.mark.django_db

BASE = "/api/benchmarks/toy/snapshots/"


@pytest.fixture
def computed(benchmark):
    """Version 1 computed by the engine from three accepted submissions."""
    for algorithm, values in {
        "alpha": {"d1": 0.9, "d2": 0.8, "d3": 0.1},
        "beta": {"d1": 0.5, "d2": 0.9, "d3": 0.2},
        "gamma": {"d1": 0.1, "d2": 0.1, "d3": 0.3},
    }.items():
        submission_accept(submission=make_submission(benchmark, algorithm, values))
    with engine_results_remembered():  # the API is under test: one engine run a process
        (snapshot,) = snapshot_refresh(benchmark_id=benchmark.pk)
    assert snapshot.status == ResultSnapshot.Status.READY, snapshot.error
    return snapshot


@pytest.fixture
def computing(computed):
    """Version 2, half way through (its run alive)."""
    hold_recompute_lease(computed.benchmark_id)
    return ResultSnapshot.objects.create(
        benchmark=computed.benchmark,
        metric=computed.metric,
        version=2,
        fingerprint="f" * 64,
        engine_version=computed.engine_version,
        stage="bootstrap",
        progress=0.5,
    )


def test_no_results_yet(client, benchmark):
    response = client.get(f"{BASE}latest/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No results have been computed yet for metric 'score'."}
    assert client.get(BASE).json()["results"] == []


def test_latest_serves_the_ready_snapshot_and_tells_what_is_computing(client, computing):
    response = client.get(f"{BASE}latest/")
    assert response.status_code == 200
    body = response.json()
    snapshot = ResultSnapshot.objects.get(version=1)
    assert (body["benchmark"], body["metric"], body["version"], body["status"]) == (
        "toy",
        "score",
        1,
        "ready",
    )
    assert body["board"] == to_json(snapshot_board(snapshot=snapshot))
    validate_section("board", body["board"])
    assert set(body["sections"]) == set(SECTION_NAMES)
    assert body["sections"]["wins"].endswith(
        "/api/benchmarks/toy/snapshots/1/sections/wins/?metric=score"
    )
    assert "payload" not in body and "timings" in body
    assert body["computing"]["version"] == 2
    assert (body["computing"]["stage"], body["computing"]["progress"]) == ("bootstrap", 0.5)


def test_a_version_whose_run_died_is_not_shown_computing(client, computing):
    hold_recompute_lease(computing.benchmark_id, alive=False)  # killed before the sweep ran
    body = client.get(f"{BASE}latest/").json()
    assert (body["version"], body["computing"]) == (1, None)


def test_by_version_and_unknown_metric(client, computing):
    response = client.get(f"{BASE}2/?metric=score")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["stage"], body["progress"], body["board"], body["sections"]) == (
        "computing",
        "bootstrap",
        0.5,
        None,
        None,
    )
    response = client.get(f"{BASE}3/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No version 3 of the results for metric 'score'."}
    response = client.get(f"{BASE}latest/?metric=auc")
    assert response.status_code == 404
    assert response.json() == {"detail": "No metric 'auc' in 'toy'."}


def test_history_lists_versions_newest_first(client, computing):
    response = client.get(BASE)
    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["version"], r["status"], r["stage"], r["progress"]) for r in rows] == [
        (2, "computing", "bootstrap", 0.5),
        (1, "ready", "", 1.0),
    ]
    assert rows[0]["finished_at"] is None and rows[1]["finished_at"] is not None
    assert "board" not in rows[0]


def test_csv_export_has_one_row_per_algorithm(client, computed):
    response = client.get(f"{BASE}latest/export.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="toy-score-v1.csv"'
    board = snapshot_board(snapshot=computed)
    lines = response.content.decode().splitlines()
    header = lines[0].split(",")
    assert header[:10] == [
        "position",
        "algorithm",
        "position_by",
        "rank_low",
        "rank_high",
        "plausible_winner",
        "rank_question",
        "mean_score",
        "sd_score",
        "mean_rank",
    ]
    # the win rate once: the mle estimator's column (no duplicate win_rate column)
    assert "win_rate" not in header and header.count("mle") == 1
    # each estimator's point, its interval and that interval's label, its own spread
    assert header[10:17] == [
        "loo_kl",
        "loo_kl_low",
        "loo_kl_high",
        "loo_kl_interval",
        "loo_kl_spread_low",
        "loo_kl_spread_high",
        "loo_kl_p_best",
    ]
    assert {"mle_low", "mle_simultaneous_low"} <= set(header)
    assert not any(name.startswith("win_ci") for name in header)
    # the page's order: the recommended estimator, then mean rank, then name
    order = [board.algorithms[i] for i in board_order(board, board.recommended)]
    assert [line.split(",")[1] for line in lines[1:]] == order
    index = board.algorithms.index("alpha")
    alpha = dict(zip(header, lines[1 + order.index("alpha")].split(","), strict=True))
    # rounded for reading (4 decimals for probabilities, 3 for ranks)
    assert float(alpha["mean_rank"]) == pytest.approx(board.mean_rank[index], abs=5e-4)
    assert float(alpha["mle"]) == pytest.approx(board.win_rate[index], abs=5e-5)
    assert alpha["position_by"] == estimator_get(board.recommended).label
    loo = board.estimator("loo_kl")
    assert float(alpha["loo_kl"]) == pytest.approx(loo.p[index], abs=5e-5)
    # beside an estimate of P(win), the exact interval of the true P(win); its spread after
    assert float(alpha["loo_kl_high"]) == pytest.approx(board.win_interval.upper[index], abs=5e-5)
    assert alpha["loo_kl_interval"] == f"{board.win_interval.label} of the true P(win)"
    spread_high = float(alpha["loo_kl_spread_high"])
    assert spread_high == pytest.approx(loo.bootstrap.upper[index], abs=5e-5)
    assert float(alpha["mle_low"]) == pytest.approx(board.win_interval.lower[index], abs=5e-5)
    assert int(alpha["rank_low"]) == board.ranks.lower[index]
    assert alpha["plausible_winner"] == str("alpha" in board.ranks.plausible_winners)
    assert alpha["rank_question"] == board.ranks.question_words


def test_json_export(client, computed):
    response = client.get(f"{BASE}latest/export.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="toy-score-v1.json"'
    body = response.json()
    assert (body["benchmark"], body["metric"], body["version"]) == ("toy", "score", 1)
    board = snapshot_board(snapshot=computed)
    assert body["board"] == to_json(board)
    order = [board.algorithms[i] for i in board_order(board, board.recommended)]
    assert [row["algorithm"] for row in body["rows"]] == order
    beta = next(row for row in body["rows"] if row["algorithm"] == "beta")
    assert beta["mle"] == board.win_rate[1]  # full precision in JSON
    assert body["columns"][:2] == ["position", "algorithm"]
    assert client.get(f"{BASE}1/export.json").json()["rows"] == body["rows"]


def test_a_computing_version_has_nothing_to_export(client, computing):
    assert client.get(f"{BASE}2/export.csv").status_code == 404


def test_export_columns_follow_the_board(computed):
    """The CSV's columns come from the board: every estimator of the registry in order,
    then the group letters of the tests that apply."""
    from estimation.api.export import snapshot_rows
    from estimation.core.registry import ESTIMATOR_KEYS

    board = snapshot_board(snapshot=computed)
    columns, rows = snapshot_rows(board)
    estimator_columns = [c for c in columns if c in ESTIMATOR_KEYS]
    assert estimator_columns == list(ESTIMATOR_KEYS)
    assert columns[-1] == "nemenyi_group" or columns[-1] == "wilcoxon_group"
    assert [row["algorithm"] for row in rows] == [
        board.algorithms[i] for i in board_order(board, board.recommended)
    ]


# --- sections -------------------------------------------------------------------------


def test_every_section_is_served_as_stored_with_an_etag(client, computed):
    for name in SECTION_NAMES:
        response = client.get(f"{BASE}1/sections/{name}/")
        assert response.status_code == 200, name
        assert response["Content-Type"] == "application/json"
        data = json.loads(response.content)
        validate_section(name, data)
        assert section_from_json(name, data) == snapshot_section(snapshot_id=computed.pk, name=name)
        etag = response["ETag"]
        again = client.get(f"{BASE}1/sections/{name}/", HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304 and not again.content
    latest = client.get(f"{BASE}latest/sections/wins/")
    assert latest.status_code == 200 and latest["ETag"]


def test_a_section_for_chosen_algorithms_keeps_their_stored_values(client, computed):
    whole = client.get(f"{BASE}1/sections/wins/").json()
    names = whole["algorithms"]
    chosen = client.get(f"{BASE}1/sections/wins/?algorithms=gamma,alpha").json()
    validate_section("wins", chosen)
    assert chosen["algorithms"] == ["alpha", "gamma"]  # the section's order, not the query's
    i, j = names.index("alpha"), names.index("gamma")
    m = len(names)
    upper = whole["wins"]["upper"][pair_index(i, j, m)]
    assert chosen["wins"]["upper"] == [upper]
    top = client.get(f"{BASE}1/sections/rank_matrix/?top=2").json()
    board = snapshot_board(snapshot=computed)
    assert set(top["algorithms"]) == set(board.top(2))


def test_the_advisor_is_its_own_stored_section_served_whole(client, computed):
    board = client.get(f"{BASE}1/sections/board/").json()
    assert "advisor" not in board  # the board stays O(m) and fast
    assert board["control"]["control"] in board["input"]["algorithms"]
    advisor = client.get(f"{BASE}1/sections/advisor/").json()
    validate_section("advisor", advisor)
    assert [t["truth"] for t in advisor["truths"]] == ["plackett_luce", "empirical", "mixture"]
    assert "sentence" in advisor["power"]  # how many more datasets
    assert [s["n_datasets"] for s in advisor["truths"][0]["sizes"]] == [3, 6, 12]
    chosen = client.get(f"{BASE}1/sections/advisor/?algorithms=alpha").json()
    assert chosen == advisor


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?algorithms=,,", "algorithms"),
        ("?top=0", "top"),
        ("?top=many", "top"),
    ],
)
def test_bad_choices_are_refused_with_the_field_named(client, computed, query, field):
    response = client.get(f"{BASE}1/sections/wins/{query}")
    assert response.status_code == 400
    body = response.json()
    assert any(p["field"] in (field, None) for p in body.get("problems", [])), body


def test_algorithms_and_top_together_give_both(client, computed):
    board = snapshot_board(snapshot=computed)
    outside = next(a for a in board.algorithms if a not in board.top(1))
    both = client.get(f"{BASE}1/sections/wins/?top=1&algorithms={outside}").json()
    assert set(both["algorithms"]) == {*board.top(1), outside}


def test_an_algorithm_the_snapshot_lacks_is_not_found(client, computed):
    # As an unknown metric: the query is well formed (the schema takes it), its object is
    # not there.
    response = client.get(f"{BASE}1/sections/wins/?algorithms=alpha,nobody")
    assert response.status_code == 404
    assert response.json() == {"detail": "Algorithms not in this snapshot: 'nobody'."}


def test_an_unknown_section_is_refused_and_a_computing_version_has_none(client, computing):
    response = client.get(f"{BASE}1/sections/payload/")
    assert response.status_code == 400
    assert "one of board" in json.dumps(response.json())
    assert client.get(f"{BASE}2/sections/board/").status_code == 404


def test_the_contract_and_its_schema_are_published_and_linked_from_the_docs(client):
    schema = client.get("/api/contract/snapshot.schema.json")
    assert schema.status_code == 200
    assert json.loads(schema.content) == json_schema()
    reference = client.get("/api/contract/")
    assert reference.status_code == 200 and b"null when" in reference.content
    docs = client.get("/api/docs/").content.decode()
    assert 'href="/api/contract/"' in docs and 'href="/api/contract/snapshot.schema.json"' in docs


def test_board_section_carries_each_estimators_labelled_interval_and_the_ranks(client, computed):
    """The API's board is the contract itself, so each estimator's own interval
    (with its label, kind, method and level), the rank intervals, the plausible winners and
    the default's rule reach API readers with no serialiser of their own."""
    board = client.get(f"{BASE}latest/").json()["board"]
    for entry in board["estimators"]:
        interval = entry["bootstrap"]
        assert {"lower", "upper", "label", "kind", "method", "level"} <= set(interval)
        for low, p, high in zip(interval["lower"], entry["p"], interval["upper"], strict=True):
            assert low <= p <= high
    ranks = board["ranks"]
    assert set(ranks["plausible_winners"]) <= set(board["input"]["algorithms"])
    assert all(lo <= hi for lo, hi in zip(ranks["lower"], ranks["upper"], strict=True))
    assert board["recommended_by"]
    # an estimate of P(win) is quoted beside the exact interval of the true P(win)
    assert board["verdict"]["interval"] == f"{board['win_interval']['label']} of the true P(win)"
