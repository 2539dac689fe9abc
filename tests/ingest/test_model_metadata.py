"""What the importers read of each model for the reader's table: its family, parameter
count and licence where the file states them, neutralised like every input, and carried
to the algorithm when the import is accepted."""

from __future__ import annotations

import json

import pytest

from leaderboard.ingest.formats import files_from_path, read_imported
from leaderboard.ingest.formats.common import (
    MAX_METADATA_LENGTH,
    metadata_text,
    model_organisation,
    model_precision,
    open_weights_flag,
    parameter_count,
)
from tests.ingest.helpers import FIXTURES, fixture_files


@pytest.mark.parametrize(
    ("given", "scale", "count"),
    [
        (1011781632, 1, 1011781632),
        ("7000000000", 1, 7_000_000_000),
        ("7B", 1, 7_000_000_000),
        ("1.5b", 1, 1_500_000_000),
        (" 350M ", 1, 350_000_000),
        ("1,234", 1, 1234),
        (7.24, 10**9, 7_240_000_000),
        ("7.24", 10**9, 7_240_000_000),
    ],
)
def test_parameter_counts_as_files_write_them(given, scale, count):
    assert parameter_count(given, scale=scale) == count


@pytest.mark.parametrize(
    "given", [None, True, 0, -3, "", "seven", "7X", "1e400", "9" * 30, float("nan"), 2.0**70, []]
)
def test_what_is_no_parameter_count_is_none(given):
    assert parameter_count(given) is None


def test_metadata_text_is_one_line_without_control_characters_and_capped():
    assert metadata_text("Apache\u00ad-2.0\x00 \n licence\u202e") == "Apache -2.0 licence"
    assert metadata_text(42) == "" and metadata_text(None) == ""
    assert len(metadata_text("x" * 10_000)) == MAX_METADATA_LENGTH
    # markup stays text (the pages escape it); it is not a reason to refuse an import
    assert metadata_text("<script>alert(1)</script>") == "<script>alert(1)</script>"


def test_the_organisation_of_a_model_id_is_its_family():
    assert model_organisation("meta-llama/Llama-2-7b-hf") == "meta-llama"
    assert model_organisation("gpt2") == "" and model_organisation("/x") == ""
    assert model_organisation("<b>/model") == ""


def test_lm_eval_gives_the_parameter_count_and_the_organisation():
    imported = read_imported(fixture_files("lm-eval"), format="lm-eval")
    pythia = imported.algorithm("EleutherAI/pythia-1b")
    assert pythia.parameters == 1011781632 and pythia.family == "EleutherAI"
    assert pythia.licence == ""  # lm-eval files state none


@pytest.mark.parametrize("format", ["lighteval", "hf-leaderboard"])
def test_open_llm_files_give_the_organisation(format):
    imported = read_imported(fixture_files(format), format=format)
    assert {a.name: a.family for a in imported.algorithms} == {
        "meta-llama/Llama-2-7b-hf": "meta-llama",
        "mistralai/Mistral-7B-v0.1": "mistralai",
        "tiiuae/falcon-7b": "tiiuae",
    }


def test_an_open_llm_results_file_may_state_the_parameter_count():
    files = dict(fixture_files("hf-leaderboard"))
    path = next(p for p in files if "falcon" in p)
    doc = json.loads(files[path])
    doc["config"]["model_num_parameters"] = 7_217_189_760
    files[path] = json.dumps(doc).encode()
    imported = read_imported(files, format="hf-leaderboard")
    assert imported.algorithm("tiiuae/falcon-7b").parameters == 7_217_189_760
    assert imported.algorithm("mistralai/Mistral-7B-v0.1").parameters is None


def test_helm_gives_the_model_creator():
    imported = read_imported(fixture_files("helm"), format="helm")
    assert imported.algorithm("openai/gpt2").family == "openai"
    assert imported.algorithm("eleutherai/pythia-1b-v0").family == "eleutherai"


def _eee_with(details: dict, **info) -> dict[str, bytes]:
    files = dict(fixture_files("eee"))
    path = next(p for p in files if "gemma" in p)
    doc = json.loads(files[path])
    doc["model_info"]["additional_details"] = details
    doc["model_info"].update(info)
    files[path] = json.dumps(doc).encode()
    return files


def test_every_eval_ever_model_info_gives_family_size_and_licence():
    imported = read_imported(fixture_files("eee"), format="eee")
    qwen = imported.algorithm("Qwen/Qwen2.5-7B-Instruct")
    assert (qwen.family, qwen.parameters, qwen.licence) == ("Qwen", 8000000001, "open")


@pytest.mark.parametrize(
    ("details", "info", "parameters", "licence"),
    [
        ({"parameters": "9B", "license": "gemma"}, {}, 9_000_000_000, "gemma"),
        ({"params_billions": "9.24"}, {"license": "gemma"}, 9_240_000_000, "gemma"),
        ({"num_parameters": "9241705984"}, {}, 9_241_705_984, ""),
        ({"parameters": "many", "licence": "x\x07y" + "z" * 300}, {}, None, "x y" + "z" * 97),
    ],
)
def test_every_eval_ever_metadata_as_strings_and_hostile_values(details, info, parameters, licence):
    imported = read_imported(_eee_with(details, **info), format="eee")
    gemma = next(a for a in imported.algorithms if "gemma" in a.name)
    assert (gemma.parameters, gemma.licence) == (parameters, licence)


@pytest.mark.django_db
def test_imported_metadata_reaches_the_algorithms_of_the_board():
    from leaderboard.models import Algorithm
    from tests.factories import make_pythia_board

    board = make_pythia_board()
    found = {a.name: (a.family, a.parameters) for a in Algorithm.objects.filter(benchmark=board)}
    assert found["EleutherAI/pythia-1b"] == ("EleutherAI", 1011781632)
    assert found["EleutherAI/pythia-160m"] == ("EleutherAI", 162322944)
    precisions = Algorithm.objects.filter(benchmark=board).values_list("precision", flat=True)
    assert set(precisions) == {"float16"}  # lm-eval's config.model_dtype "torch.float16"


@pytest.mark.parametrize(
    ("given", "precision"),
    [
        ("torch.bfloat16", "bfloat16"),
        ("bf16", "bfloat16"),
        ("FP16", "float16"),
        ("float16", "float16"),
        ("int8", "8bit"),
        ("8-bit", "8bit"),
        ("4bit", "4bit"),
        ("torch.float32", "float32"),
        ("auto", ""),
        ("gptq-int3\x00" + "q" * 100, "gptq-int3 " + "q" * 20),
        (None, ""),
        (16, ""),
    ],
)
def test_a_precision_as_files_write_it_is_one_name(given, precision):
    assert model_precision(given) == precision


@pytest.mark.parametrize(
    ("given", "flag"),
    [
        (True, True),
        (False, False),
        ("yes", True),
        (" No ", False),
        ("true", True),
        ("", None),
        (None, None),
        (1, None),
        ("maybe", None),
    ],
)
def test_open_weights_as_files_write_it(given, flag):
    assert open_weights_flag(given) is flag


@pytest.mark.parametrize(
    ("format", "precision"),
    [("hf-leaderboard", "bfloat16"), ("lighteval", "bfloat16"), ("lm-eval", "float16")],
)
def test_harness_files_give_the_precision_of_their_model(format, precision):
    imported = read_imported(fixture_files(format), format=format)
    assert {a.precision for a in imported.algorithms} == {precision}


def test_every_eval_ever_gives_the_precision_also_of_a_model_run_at_two():
    files = files_from_path(FIXTURES / "eee-open-llm-v2")
    imported = read_imported(files, format="eee")
    assert {a.name: a.precision for a in imported.algorithms} == {
        "Qwen/Qwen2.5-7B-Instruct (bfloat16)": "bfloat16",
        "Qwen/Qwen2.5-7B-Instruct (float16)": "float16",
        "google/gemma-2-9b-it": "bfloat16",
        "meta-llama/Llama-3.1-8B-Instruct": "bfloat16",
    }


def test_open_weights_from_mteb_and_every_eval_ever():
    mteb = read_imported(fixture_files("mteb"), format="mteb")
    assert {a.open_weights for a in mteb.algorithms} == {True}
    eee = read_imported(_eee_with({"open_weights": "no", "precision": "int4"}), format="eee")
    gemma = next(a for a in eee.algorithms if "gemma" in a.name)
    assert (gemma.open_weights, gemma.precision) == (False, "4bit")
    assert {a.open_weights for a in eee.algorithms if a is not gemma} == {None}


@pytest.mark.django_db
def test_precision_and_closed_weights_are_kept_as_submission_metadata():
    """open_weights false is something the file says: kept, unlike an empty text."""
    from leaderboard.ingest.imported import imported_entries
    from leaderboard.services import benchmark_create

    benchmark = benchmark_create(slug="meta", title="Meta", metrics=[("score", "higher")])
    files = _eee_with({"open_weights": False, "precision": "torch.float16"})
    entries = imported_entries(benchmark=benchmark, imported=read_imported(files, format="eee"))
    gemma = next(e for e in entries if "gemma" in e.algorithm)
    assert gemma.algorithm_metadata["open_weights"] is False
    assert gemma.algorithm_metadata["precision"] == "float16"


def test_a_results_csv_describes_its_algorithms_in_optional_columns():
    from leaderboard.ingest.results_csv import ResultsCsvError, parse_results_csv_text

    parsed = parse_results_csv_text(
        "dataset,algorithm,score,family,parameters,licence\n"
        "d1,small-lm,0.5,decoder,350M,apache-2.0\n"
        "d2,small-lm,0.6,,,\n"
        "d1,big-lm,0.7,decoder,7000000000,\n"
    )
    assert dict(parsed.algorithm_metadata) == {
        "small-lm": {"family": "decoder", "parameters": 350_000_000, "licence": "apache-2.0"},
        "big-lm": {"family": "decoder", "parameters": 7_000_000_000},
    }
    with pytest.raises(ResultsCsvError) as refused:
        parse_results_csv_text("dataset,algorithm,score,parameters\nd1,a,0.5,seven\n")
    assert "'seven' is not a parameter count" in str(refused.value)
