"""Issue 42, checked against the source: lm-eval (0.4 and 0.3), the Hugging Face
leaderboard template, OpenML (records, CSV, XML) and the Hub's ``.eval_results`` each
imported from a real-shaped fixture (PROVENANCE.md), and the board's order compared with
the order the source publishes (Kendall's tau)."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.ingest.formats import files_from_path, read_imported
from tests.ingest.helpers import FIXTURES, board_order, tau

# The Pythia paper's zero-shot table (Biderman et al. 2023) lists the suite by size, and
# its scores rise with size on every task of the fixture: best first.
PYTHIA_PUBLISHED = [
    "EleutherAI/pythia-6.9b",
    "EleutherAI/pythia-2.8b",
    "EleutherAI/pythia-1.4b",
    "EleutherAI/pythia-1b",
    "EleutherAI/pythia-410m",
    "EleutherAI/pythia-160m",
]
# GPT-J-6B's model card compares it with GPT-Neo on lm-eval 0.3 tasks: best first.
GPT_NEO_PUBLISHED = [
    "EleutherAI/gpt-j-6b",
    "EleutherAI/gpt-neo-2.7B",
    "EleutherAI/gpt-neo-1.3B",
    "EleutherAI/gpt-neo-125M",
]
# The Open LLM Leaderboard (v1) sorts by its Average column, the mean of the six
# benchmarks (each on its own metric), in percent.
OPEN_LLM_AVERAGE = {
    "mistralai/Mistral-7B-v0.1": 60.93,
    "meta-llama/Llama-2-13b-hf": 55.70,
    "meta-llama/Llama-2-7b-hf": 51.00,
    "tiiuae/falcon-7b": 44.17,
    "EleutherAI/gpt-j-6b": 40.15,
    "EleutherAI/pythia-1.4b": 34.93,
}
_SKLEARN = "sklearn.pipeline.Pipeline(imputation=sklearn.impute.SimpleImputer,estimator=sklearn."
HGB = _SKLEARN + "ensemble.HistGradientBoostingClassifier)"
RF = _SKLEARN + "ensemble.RandomForestClassifier)"
LR = _SKLEARN + "linear_model.LogisticRegression)"
DT = _SKLEARN + "tree.DecisionTreeClassifier)"
# OpenML's task pages list the runs of a task by the chosen evaluation, best first
# (highest accuracy; lowest RMSE, which orders the fixture's flows alike on each task).
OPENML_TASK_ORDERS = {
    "credit-g": [RF, HGB, LR, DT],
    "kr-vs-kp": [HGB, DT, RF, LR],
    "diabetes": [LR, RF, HGB, DT],
    "kc1": [HGB, RF, LR, DT],
}
# A study's page ranks the flows across its tasks by mean rank: 1.75, 2.0, 2.75, 3.5.
OPENML_STUDY_ORDER = [HGB, RF, LR, DT]
# The model cards' values as the Hub's page of each benchmark sorts them, best first,
# and across the three benchmarks by mean rank (1.33, 1.67, 3, 4, 5).
CARD_ORDERS = {
    "Idavidrein/gpqa/gpqa_diamond": ["Qwen", "phi", "gemma", "Llama", "Ministral"],
    "HuggingFaceH4/aime_2024": ["Qwen", "phi", "gemma", "Llama", "Ministral"],
    "TIGER-Lab/MMLU-Pro": ["phi", "Qwen", "gemma", "Llama", "Ministral"],
}
CARD_MODELS = {
    "Qwen": "Qwen/Qwen3-8B",
    "phi": "microsoft/phi-4",
    "gemma": "google/gemma-3-12b-it",
    "Llama": "meta-llama/Llama-3.1-8B-Instruct",
    "Ministral": "mistralai/Ministral-8B-Instruct-2410",
}
CARDS_PUBLISHED = [CARD_MODELS[n] for n in ("Qwen", "phi", "gemma", "Llama", "Ministral")]


def _stated_direction(imported, metric: str) -> bool | None:
    info = imported.metric(metric)
    assert info is not None, metric
    return info.higher_is_better


def _dataset_order(imported, metric: str, dataset: str) -> list[str]:
    """One dataset's board: its algorithms by the score, in the metric's direction."""
    higher = _stated_direction(imported, metric) is not False  # as board_order
    table = imported.parsed.to_table(metric=metric, higher_is_better=higher)
    row = table.values[table.datasets.index(dataset)]
    oriented = row if higher else -row
    return [table.algorithms[j] for j in np.argsort(-oriented, kind="stable")]


def test_lm_eval_pythia_ranks_as_the_pythia_papers_table():
    imported = read_imported(files_from_path(FIXTURES / "lm-eval-pythia"), format="lm-eval")
    assert set(imported.parsed.algorithms) == set(PYTHIA_PUBLISHED)
    assert len(imported.parsed.to_table(metric="acc").datasets) == 5
    assert tau(board_order(imported, "acc"), PYTHIA_PUBLISHED) == pytest.approx(1.0)
    # Perplexity is lower-is-better as the file's higher_is_better says: read the other
    # way, the board would be the table upside down (tau -1).
    assert _stated_direction(imported, "perplexity") is False
    assert tau(board_order(imported, "perplexity"), PYTHIA_PUBLISHED) == pytest.approx(1.0)


def test_lm_eval_0_3_gpt_neo_ranks_as_gpt_j_model_card():
    imported = read_imported(files_from_path(FIXTURES / "lm-eval-0.3-neo"), format="lm-eval")
    # 0.3 writes no model_name: the name comes from pretrained= in model_args.
    assert set(imported.parsed.algorithms) == set(GPT_NEO_PUBLISHED)
    datasets = imported.parsed.to_table(metric="acc").datasets
    assert sorted(datasets) == ["hellaswag", "lambada", "piqa", "winogrande"]
    assert tau(board_order(imported, "acc"), GPT_NEO_PUBLISHED) == pytest.approx(1.0)
    assert tau(board_order(imported, "acc_norm"), GPT_NEO_PUBLISHED) == pytest.approx(1.0)
    # 0.3 states no direction: LAMBADA's perplexity is imported with --direction lower
    # (a new benchmark refuses it without one), and then ranks as the card does.
    assert _stated_direction(imported, "ppl") is None
    lower = board_order(imported, "ppl", direction=False)
    assert tau(lower, GPT_NEO_PUBLISHED) == pytest.approx(1.0)


def test_hf_leaderboard_boards_follow_the_open_llm_average_but_truthfulqa():
    imported = read_imported(
        files_from_path(FIXTURES / "hf-leaderboard-v1"), format="hf-leaderboard"
    )
    published = sorted(OPEN_LLM_AVERAGE, key=lambda model: -OPEN_LLM_AVERAGE[model])
    table = {m: imported.parsed.to_table(metric=m) for m in ("acc", "acc_norm", "mc2")}
    mean = np.nanmean(np.vstack([t.values for t in table.values()]), axis=0)  # per model
    assert table["acc"].algorithms == table["mc2"].algorithms == table["acc_norm"].algorithms
    average = dict(zip(table["acc"].algorithms, np.round(100 * mean, 2), strict=True))
    assert average == pytest.approx(OPEN_LLM_AVERAGE)  # the Average the page shows
    # ARC and HellaSwag (acc_norm), MMLU, Winogrande and GSM8K (acc) order the models as
    # the Average does.
    assert tau(board_order(imported, "acc_norm"), published) == pytest.approx(1.0)
    assert tau(board_order(imported, "acc"), published) == pytest.approx(1.0)
    # TruthfulQA (mc2) does not rise with size, as on the real leaderboard: 5 of the
    # 15 pairs disagree with the Average (pythia-1.4b passes three models), tau 5 / 15.
    assert tau(board_order(imported, "mc2"), published) == pytest.approx(1 / 3)


@pytest.mark.parametrize("folder", ["openml-cc18", "openml-cc18-csv", "openml-cc18-xml"])
@pytest.mark.parametrize("function", ["predictive_accuracy", "root_mean_squared_error"])
def test_openml_ranks_each_task_and_the_study_as_openml(folder, function):
    imported = read_imported(files_from_path(FIXTURES / folder), format="openml")
    assert _stated_direction(imported, function) is (function == "predictive_accuracy")
    table = imported.parsed.to_table(metric=function)
    assert sorted(table.datasets) == sorted(OPENML_TASK_ORDERS)
    assert table.fold_values is not None and table.fold_values.shape == (4, 10, 4)
    for dataset, published in OPENML_TASK_ORDERS.items():
        assert tau(_dataset_order(imported, function, dataset), published) == pytest.approx(1.0)
    assert tau(board_order(imported, function), OPENML_STUDY_ORDER) == pytest.approx(1.0)


def test_eval_results_rank_as_the_model_cards_values():
    imported = read_imported(
        files_from_path(FIXTURES / "eval-results-cards"), format="eval-results"
    )
    assert sorted(imported.parsed.datasets) == sorted(CARD_ORDERS)
    for dataset, names in CARD_ORDERS.items():
        published = [CARD_MODELS[n] for n in names]
        # gpqa: Ministral's newer card value (26.8), not its earlier 31.0 above Llama's.
        assert tau(_dataset_order(imported, "score", dataset), published) == pytest.approx(1.0)
    assert tau(board_order(imported, "score"), CARDS_PUBLISHED) == pytest.approx(1.0)
    (older,) = imported.left_out  # listed, not refused
    assert older.column.endswith("Ministral-8B-Instruct-2410/.eval_results/gpqa.yaml: [0].value")
