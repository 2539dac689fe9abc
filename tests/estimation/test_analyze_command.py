"""`manage.py analyze` on the real published tables, in every format they come in."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class

from estimation.core.contract import NotApplicable, SnapshotPayload, pair_index
from estimation.core.verdict import rank_span
from estimation.core.within_dataset import repeated_measures_anova
from tests import csv_messages
from tests.contract_validation import validate
from tests.reference_data import PUBLISHED_DATA

ROOT = Path(__file__).resolve().parents[2]
DEMSAR = PUBLISHED_DATA / "demsar2006"
# The project's own commands (Django's and the libraries' are theirs to describe).
PROJECT_COMMANDS = sorted(
    name
    for name, app in get_commands().items()
    if app.split(".")[0] in {"leaderboard", "estimation", "frontend", "operations"}
)


def analyze_json(path, *args: str) -> SnapshotPayload:
    """The command's --json output, validated against the committed JSON Schema."""
    out = io.StringIO()
    call_command("analyze", str(path), "--json", *args, stdout=out)
    data = json.loads(out.getvalue())
    validate(data)
    return SnapshotPayload.from_json(data)


def write_rows(path: Path, header: list[str], rows: list[list]) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def demsar_printed_ranks_as_ranking_file(tmp_path: Path) -> Path:
    with open(DEMSAR / "demsar2006_table6_ranks_as_printed.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    rows = [
        [row["dataset"], algorithm, row[algorithm]]
        for row in table
        for algorithm in row
        if algorithm != "dataset"
    ]
    return write_rows(tmp_path / "ranks.csv", ["dataset", "algorithm", "rank"], rows)


def test_demsar_auc_values_reproduce_the_published_figures():
    board = analyze_json(DEMSAR / "demsar2006_table6_auc.csv", "--bootstrap", "200").board
    assert board.input.n_datasets == 14 and board.input.direction == "higher"
    # PROVENANCE.md: ranking the printed AUCs gives 9.857 / 3.987; scipy's tie-corrected 10.95.
    friedman = board.friedman
    assert friedman.statistic_uncorrected == pytest.approx(9.857, abs=5e-4)
    assert friedman.iman_davenport_uncorrected == pytest.approx(3.987, abs=5e-4)
    assert friedman.statistic == pytest.approx(10.95, abs=5e-3)
    assert board.nemenyi.critical_difference == pytest.approx(1.25, abs=5e-3)
    assert board.column(board.mean_rank) == pytest.approx(
        {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.929, "C4.5+m+cf": 1.929}, abs=5e-4
    )
    assert board.column(board.win_rate) == pytest.approx(
        {"C4.5+m+cf": 0.4464, "C4.5+m": 0.3036, "C4.5": 0.1607, "C4.5+cf": 0.0893}, abs=5e-5
    )
    for estimate in board.estimators:
        assert sum(estimate.p) == pytest.approx(1.0, abs=1e-9)
        assert sum(estimate.bootstrap.p_best) == pytest.approx(1.0, abs=1e-9)
        for low, high in zip(estimate.bootstrap.lower, estimate.bootstrap.upper, strict=True):
            assert 0.0 <= low <= high <= 1.0, estimate.key
    assert board.wilcoxon.correction == "holm"
    assert set(board.evaluation.log_loss) == set(board.estimator_keys)


def test_demsar_printed_ranks_as_a_ranking_file_give_the_papers_statistics(tmp_path):
    board = analyze_json(demsar_printed_ranks_as_ranking_file(tmp_path), "--bootstrap", "100").board
    assert board.input.kind == "rank"
    # Demšar (2006), Table 6 and section 3.2.2: chi2_F = 9.28, F_F = 3.69, CD = 1.25.
    assert board.friedman.statistic_uncorrected == pytest.approx(9.28, abs=5e-3)
    assert board.friedman.iman_davenport_uncorrected == pytest.approx(3.69, abs=5e-3)
    assert board.nemenyi.critical_difference == pytest.approx(1.25, abs=5e-3)
    assert board.column(board.mean_rank) == pytest.approx(
        {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964}, abs=5e-4
    )
    assert isinstance(board.wilcoxon, NotApplicable)  # rankings carry no scores


def test_tabzilla_top3_ranking_file_uses_only_the_known_positions(tmp_path):
    with open(PUBLISHED_DATA / "tabzilla_top3" / "tabzilla_table4_top3.csv", newline="") as handle:
        rows = [
            [row["dataset"], row[column], position]
            for row in csv.DictReader(handle)
            for position, column in enumerate(("first", "second", "third"), start=1)
        ]
    path = write_rows(tmp_path / "top3.csv", ["dataset", "algorithm", "rank"], rows)
    board = analyze_json(path, "--bootstrap", "100").board
    assert board.input.known_positions == 3
    assert len(board.algorithms) == 18 and board.input.n_datasets == 36
    assert isinstance(board.friedman, NotApplicable) and isinstance(board.nemenyi, NotApplicable)
    loo_kl = board.estimator("loo_kl")
    weights = loo_kl.weights
    assert len(weights) == 3 and weights[0] >= weights[1] >= weights[2] >= 0
    assert loo_kl.loss <= loo_kl.loss_mle
    assert isinstance(board.mean_rank, NotApplicable)  # unknown below the top 3


def test_tabzilla_full_log_loss_lower_is_better(tmp_path):
    source = PUBLISHED_DATA / "tabzilla_full" / "tuned_aggregated_results.csv"
    with open(source, newline="") as handle:
        rows = []
        for row in csv.DictReader(handle):
            low, high = float(row["Log Loss__test_mean_min"]), float(row["Log Loss__test_mean_max"])
            value = low + float(row["normalized_Log Loss__test_mean"]) * (high - low)
            rows.append([row["dataset_name"], row["alg_name"], repr(value)])
    path = write_rows(tmp_path / "logloss.csv", ["dataset", "algorithm", "score"], rows)
    board = analyze_json(path, "--lower-is-better", "--bootstrap", "100").board
    assert board.input.n_datasets_used == 104 and board.input.direction == "lower"
    # The repository's Log_Loss_rank.csv: CatBoost has the best mean rank (4.48, min ranks).
    mean_rank = board.column(board.mean_rank)
    best = min(mean_rank, key=mean_rank.get)
    assert best == "CatBoost"


@pytest.mark.external_data("fernandez_delgado_2014")
@pytest.mark.parametrize("missing", ["complete", "worst"])
def test_fernandez_delgado_with_missing_cells_and_ties(missing, external_data):
    path = external_data / "fd2014_accuracy_179classifiers.csv"
    board = analyze_json(path, "--missing", missing, "--bootstrap", "0").board
    facts = board.input
    assert facts.n_datasets == 121
    assert facts.n_tied_first > 0
    if missing == "complete":
        assert facts.dropped_datasets and any("left out" in note for note in board.notes)
    else:
        assert facts.n_datasets_used == 121 - len(facts.dropped_datasets)


def test_same_seed_same_output_and_the_seed_matters():
    path = DEMSAR / "demsar2006_table6_auc.csv"
    first = analyze_json(path, "--bootstrap", "200", "--seed", "7")
    second = analyze_json(path, "--bootstrap", "200", "--seed", "7")
    other = analyze_json(path, "--bootstrap", "200", "--seed", "8")
    assert first == second  # no timings in the payload: the same input, the same output
    assert first.board.estimator("mle").bootstrap != other.board.estimator("mle").bootstrap


def test_readable_report_leads_with_the_recommended_estimator():
    out = io.StringIO()
    call_command(
        "analyze", str(DEMSAR / "demsar2006_table6_auc.csv"), "--bootstrap", "100", stdout=out
    )
    report = out.getvalue()
    assert "Probability of winning a new dataset: Leave-one-out weights (log loss)" in report
    assert "Friedman chi2 = 10.952 (uncorrected 9.857)" in report
    assert "Nemenyi critical difference 1.254" in report
    assert "Which estimator predicts best here" in report
    assert "1 dataset has a tie for first place" in report


def test_readable_report_pairs_each_p_win_with_the_true_p_win_interval_then_its_spread():
    """The headline P(win) beside the exact interval of the true P(win) under its label,
    then the estimate's own spread, the exact interval again beside the win rate, the rank
    intervals and the plausible winners, and the verdict's two sentences first."""
    path = DEMSAR / "demsar2006_table6_auc.csv"
    out = io.StringIO()
    call_command("analyze", str(path), "--bootstrap", "200", "--quiet", stdout=out)
    report = out.getvalue()
    board = analyze_json(path, "--bootstrap", "200").board
    head = board.estimator(board.recommended)
    lines = report.splitlines()
    header = next(line for line in lines if line.startswith("#  rank"))
    assert f"P(win)  {board.win_interval.label} of the true P(win)  spread of the estimate" in (
        header
    )
    assert f"win rate {board.win_interval.label}" in header
    for sentence in board.verdict.sentences[:2]:
        assert sentence in report
    assert board.recommended_by in report
    for i, name in enumerate(board.algorithms):
        row = next(
            line
            for line in lines
            if f"  {name}{'*' if name in board.ranks.plausible_winners else ''}  " in line
        )
        own = f"[{head.bootstrap.lower[i]:.3f}, {head.bootstrap.upper[i]:.3f}]"
        wilson = f"[{board.win_interval.lower[i]:.3f}, {board.win_interval.upper[i]:.3f}]"
        # the true P(win)'s interval right after P(win), then the spread, then the win rate's
        assert row.index(f"{head.p[i]:.3f}") < row.index(wilson) < row.index(own), row
        assert row.count(wilson) == 2 and row.rindex(wilson) > row.index(own), row
        assert row.split()[1] == rank_span(board, i)
    assert "* candidate for best: in the 95 % confidence set of the best" in report
    assert "expected ranks, best on average across datasets" in report


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the file is empty"),
        ("foo,bar\n1,2\n", "unrecognised header"),
        (
            "dataset,algorithm,score\nd1,a,0.5\nd1,b,abc\n",
            "line 3, column \"score\": 'abc' is not a number",
        ),
        (
            "dataset,algorithm,score\nd1,a,inf\nd1,b,1\n",
            "line 2, column \"score\": 'inf' is not a finite number",
        ),
        ("dataset,algorithm,score\nd1,a,1\nd1,a,2\n", "first given on line 2"),
        ("dataset,algorithm,score\nd1,a,1\nd2,a,2\n", "at least 2 algorithms are needed"),
        (
            "dataset,algorithm,score,fold\nd1,a,1,0\nd1,a,1,1\nd1,b,2,0\n",
            'line 4, column "fold": algorithm "b" on dataset "d1" lacks fold 1',
        ),
    ],
)
def test_bad_input_gets_one_clear_message(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(CommandError) as caught:
        call_command("analyze", str(path), "--json", stdout=io.StringIO())
    assert message in str(caught.value)


def test_a_single_dataset_is_reported_as_not_applicable_never_nan(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("dataset,a,b,c\nonly,0.9,0.5,0.1\n")
    board = analyze_json(path).board
    assert isinstance(board.friedman, NotApplicable) and board.friedman.reason
    assert isinstance(board.evaluation, NotApplicable) and board.evaluation.reason
    assert board.column(board.estimator("loo_kl").p) == {"a": 1.0, "b": 0.0, "c": 0.0}


def test_errors_exit_non_zero_without_a_traceback(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("dataset,algorithm,score\nd1,a,x\n")
    result = subprocess.run(
        [sys.executable, "manage.py", "analyze", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "line 2, column \"score\": 'x' is not a number" in result.stderr
    assert "Traceback" not in result.stderr


def test_folds_give_significance_aware_ranks_and_within_dataset_tests(tmp_path):
    """The simulated demo: 'new' wins 8 of 10 tasks by tiny margins and fails twice."""
    from scipy.stats import wilcoxon

    from leaderboard.demo import simulated_study_scores

    scores = simulated_study_scores()
    rows = [
        [f"task-{task + 1:02d}", name, fold, repr(float(matrix[task, fold]))]
        for name, matrix in scores.items()
        for task in range(matrix.shape[0])
        for fold in range(matrix.shape[1])
    ]
    path = write_rows(tmp_path / "folds.csv", ["dataset", "algorithm", "fold", "score"], rows)
    payload = analyze_json(path, "--bootstrap", "100")
    board = payload.board
    assert board.input.has_folds
    assert board.column(board.win_rate)["new"] == pytest.approx(0.8)
    assert board.column(board.significance_rank)["new"] == pytest.approx(1.6)
    assert board.column(board.significance_rank)["old"] == pytest.approx(1.1)
    within = payload.within_dataset
    names = within.algorithms
    i, j = sorted((names.index("new"), names.index("old")))
    table = within.entry("task-01").tukey
    k = pair_index(i, j, len(names))
    assert table.significant[k] and table.cohens_d[k] is not None
    # Holm over the 6 pairs of task-01 makes this pair's p at least its raw p.
    raw = wilcoxon(scores["new"][0], scores["old"][0]).pvalue
    assert table.wilcoxon_pvalue[k] >= raw - 1e-15
    assert table.wilcoxon_pvalue[k] <= min(1.0, 6 * raw) + 1e-15


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "--bootstrap",
            "1",
            "argument --bootstrap: '1': give 0 (no bootstrap bands) or at least 100",
        ),
        ("--bootstrap", "-5", "argument --bootstrap"),
        ("--seed", "-1", "argument --seed: '-1' is not a non-negative integer seed"),
    ],
)
def test_options_out_of_range_name_themselves(tmp_path, option, value, message):
    """Before these checks `--bootstrap 1` made every "95 % interval" a point; `--seed -1` named
    no option."""
    path = tmp_path / "small.csv"
    path.write_text("dataset,a,b\nd1,0.9,0.5\nd2,0.4,0.6\n")
    with pytest.raises(CommandError) as caught:
        call_command("analyze", str(path), "--json", option, value, stdout=io.StringIO())
    assert message in str(caught.value)


def test_a_single_dataset_says_the_loo_estimators_equal_the_win_rate(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("dataset,a,b,c\nonly,0.9,0.5,0.1\n")
    board = analyze_json(path).board
    assert any("leave-one-out estimators equal the win rate" in note for note in board.notes)


@pytest.mark.parametrize(
    ("magnitude", "signs"), [(1e308, (1, 1, 1)), (1.7e308, (1, -1, 1)), (1e-308, (1, 1, -1))]
)
def test_fold_scores_near_the_float_limits_are_analysed(tmp_path, magnitude, signs):
    """Finite fold scores near 1e308 stopped the command with an OverflowError in the
    repeated-measures ANOVA, printing nothing. Now every test that does not depend on
    the scale is computed (F equals that of the same scores at ordinary size, within
    1e-10: two roundings per score, 1.1e-16 each, amplified by the conditioning of the
    sums of squares, about 1e2), and what cannot be shown in the scores' units says so.
    """
    rng = np.random.default_rng(24)
    base = rng.uniform(0.5, 1.0, size=(4, 5, 3)) * np.array(signs)
    rows = [
        [f"d{d}", name, fold, repr(float(base[d, fold, a] * magnitude))]
        for d in range(4)
        for a, name in enumerate("abc")
        for fold in range(5)
    ]
    path = write_rows(tmp_path / "big.csv", ["dataset", "algorithm", "fold", "score"], rows)
    payload = analyze_json(path, "--bootstrap", "0")
    anova = payload.within_dataset.entry("d0").anova
    expected = repeated_measures_anova(base[0])
    assert anova.statistic == pytest.approx(expected.statistic, rel=1e-10)
    tukey = payload.within_dataset.entry("d0").tukey
    if signs == (1, -1, 1):
        assert isinstance(tukey, NotApplicable) and "exceed the float range" in tukey.reason
    else:
        assert not isinstance(tukey, NotApplicable) and None not in tukey.pvalue
    readable = io.StringIO()
    call_command("analyze", str(path), "--bootstrap", "0", stdout=readable)
    assert readable.getvalue().strip()


def analyze_error(tmp_path: Path, content: bytes, *args: str) -> str:
    path = tmp_path / "results.csv"
    path.write_bytes(content)
    with pytest.raises(CommandError) as caught:
        call_command("analyze", str(path), "--json", *args, stdout=io.StringIO())
    return str(caught.value).removeprefix(f"{path}: ")


def as_printed(problems: list[csv_messages.Problem]) -> str:
    (problem,) = problems
    return problem.printed()


@pytest.mark.parametrize(
    ("content", "problems"),
    [case for name, case in csv_messages.REFUSED.items() if name != "fold-gap"],
    ids=[name for name in csv_messages.REFUSED if name != "fold-gap"],
)
def test_newcomers_mistakes_get_the_messages_the_web_and_api_give(tmp_path, content, problems):
    """The same files and messages as the web and API upload tests (tests/csv_messages.py);
    the fold gap adds the --incomplete hint (below)."""
    assert analyze_error(tmp_path, content) == as_printed(problems)


def test_a_semicolon_file_with_quoted_decimal_commas_is_read(tmp_path):
    quoted = tmp_path / "quoted.csv"
    quoted.write_bytes(csv_messages.SEMICOLON_QUOTED + b'd1;alg-b;"0,5"\nd2;alg-b;"0,7"\n')
    plain = write_rows(
        tmp_path / "plain.csv",
        ["dataset", "algorithm", "score"],
        [["d1", "alg-a", 0.9], ["d2", "alg-a", 0.8], ["d1", "alg-b", 0.5], ["d2", "alg-b", 0.7]],
    )
    assert analyze_json(quoted, "--bootstrap", "0") == analyze_json(plain, "--bootstrap", "0")


def test_a_header_typo_is_one_did_you_mean_not_an_error_per_row(tmp_path):
    assert analyze_error(tmp_path, csv_messages.HEADER_TYPO) == as_printed(
        csv_messages.HEADER_TYPO_PROBLEMS
    )


def test_a_semicolon_file_with_decimal_commas_is_analysed_like_its_comma_twin(tmp_path):
    semicolon = tmp_path / "excel.csv"
    semicolon.write_bytes(b"\xef\xbb\xbfdataset;a;b\r\nd1;0,9;0,5\r\nd2;0,4;0,6\r\nd3;0,7;0,2\r\n")
    comma = write_rows(
        tmp_path / "plain.csv",
        ["dataset", "a", "b"],
        [["d1", 0.9, 0.5], ["d2", 0.4, 0.6], ["d3", 0.7, 0.2]],
    )
    assert analyze_json(semicolon, "--bootstrap", "0") == analyze_json(comma, "--bootstrap", "0")
    assert analyze_error(tmp_path, csv_messages.DECIMAL_COMMA) == as_printed(
        csv_messages.DECIMAL_COMMA_PROBLEMS
    )


def test_a_missing_fold_says_how_to_proceed_and_incomplete_drop_proceeds(tmp_path):
    assert analyze_error(tmp_path, csv_messages.FOLD_GAP) == (
        as_printed(csv_messages.FOLD_GAP_PROBLEMS) + "\nTo analyse the file without them, run "
        "again with --incomplete drop: each such algorithm's results on that dataset are "
        "left out and count as missing (see --missing)."
    )
    path = tmp_path / "folds.csv"
    path.write_bytes(csv_messages.FOLD_GAP + b"d3,alg-a,0,0.7\nd3,alg-b,0,0.2\n")
    err = io.StringIO()
    out = io.StringIO()
    call_command(
        "analyze", str(path), "--json", "--incomplete", "drop", "--quiet", stdout=out, stderr=err
    )
    assert err.getvalue() == (
        "--incomplete drop left out 1 result lacking folds:\n"
        '  line 4, column "fold": algorithm "alg-b" on dataset "d1" lacks fold 1: '
        "its results there are left out\n"
    )
    board = SnapshotPayload.from_json(json.loads(out.getvalue())).board
    assert board.input.datasets == ("d2", "d3")  # --missing complete: d1 has a gap now
    worst = analyze_json(path, "--incomplete", "drop", "--missing", "worst", "--quiet").board
    assert worst.input.datasets == ("d1", "d2", "d3")


@pytest.mark.parametrize("name", PROJECT_COMMANDS)
def test_every_option_of_every_project_command_has_help_text(name):
    assert len(PROJECT_COMMANDS) >= 7  # the list is found, not empty
    command = load_command_class(get_commands()[name], name)
    parser = command.create_parser("manage.py", name)
    assert [action.dest for action in parser._actions if not action.help] == []


def test_the_report_orders_and_numbers_rows_as_the_leaderboard_does(tmp_path):
    """Equal P(win) share a position ("=2") and go by mean rank, not input order."""
    from frontend.readers.presenters import leaderboard_board, leaderboard_rows

    path = write_rows(
        tmp_path / "order.csv",
        ["dataset", "best", "c", "b", "a"],
        [
            ["d1", 0.9, 0.1, 0.2, 0.3],
            ["d2", 0.9, 0.1, 0.2, 0.3],
            ["d3", 0.9, 0.2, 0.1, 0.3],
            ["d4", 0.9, 0.1, 0.3, 0.2],
            ["d5", 0.9, 0.1, 0.2, 0.3],
        ],
    )
    out = io.StringIO()
    call_command("analyze", str(path), "--bootstrap", "0", "--quiet", stdout=out)
    lines = out.getvalue().splitlines()
    start = lines.index(next(line for line in lines if line.lstrip().startswith("#"))) + 2
    # position, rank interval ("n/a" without a bootstrap), then the name
    printed = [[line.split()[0], line.split()[2].rstrip("*")] for line in lines[start : start + 4]]
    assert printed == [["1", "best"], ["=2", "a"], ["=2", "b"], ["=2", "c"]]
    board = analyze_json(path, "--bootstrap", "0", "--quiet").board
    site, _ = leaderboard_rows(leaderboard_board(board), board.recommended)
    assert printed == [[row.text["position"], row.algorithm] for row in site]
    estimators = lines.index("All estimators (probability of winning)")
    assert [line.split()[0] for line in lines[estimators + 3 : estimators + 7]] == [
        "best",
        "a",
        "b",
        "c",
    ]


def test_scores_whose_spread_exceeds_the_float_range_say_so(tmp_path):
    """An algorithm scoring +1.79e308 and -1.79e308 has a standard deviation beyond the
    float range: the score summary says so and names it; the rank-based analysis and the
    signed-rank tests (scale-free) are computed."""
    path = tmp_path / "spread.csv"
    path.write_text(
        "dataset,a,b\n"
        "d1,1.79e308,1.0\nd2,-1.79e308,2.0\nd3,1.79e308,3.0\nd4,-1.79e308,4.0\nd5,1.7e308,5.0\n"
    )
    board = analyze_json(path, "--bootstrap", "0").board
    assert isinstance(board.scores, NotApplicable)
    assert "'a' (as large as 1.79e+308)" in board.scores.reason
    assert board.column(board.mean_rank) == pytest.approx({"a": 1.4, "b": 1.6})


def test_a_one_dataset_report_counts_in_the_singular(tmp_path):
    # It said "1 of 1 datasets used" and "from all 1 datasets".
    path = tmp_path / "one.csv"
    path.write_text("dataset,algorithm,score\nd1,a,0.9\nd1,b,0.5\n")
    out = io.StringIO()
    call_command("analyze", str(path), "--bootstrap", "0", "--quiet", stdout=out)
    report = out.getvalue()
    assert "1 of 1 dataset used, 2 algorithms, higher is better, no folds." in report
    assert "from the one dataset" in report
    head = report.split("Probability of winning")[0]
    assert "1 datasets" not in head and "all 1 " not in head
