"""The Hugging Face Hub's ``.eval_results/*.yaml``: models from their folders, tasks as
datasets, setups ("With tools") as algorithms of their own, and hostile YAML refused by
file and key."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.ingest.formats import ResultsImportError, read_imported
from leaderboard.models import Benchmark
from tests.ingest.helpers import FIXTURES, fixture_files

FORMAT = "eval-results"


def _read(files, **options):
    return read_imported(files, format=FORMAT, **options)


def _errors(files, **options) -> list[str]:
    with pytest.raises(ResultsImportError) as caught:
        _read(files, **options)
    return [str(error) for error in caught.value.errors]


def test_the_repositories_are_the_algorithms_and_their_tasks_the_datasets():
    imported = _read(fixture_files(FORMAT), on_error="skip")
    table = imported.parsed.to_table()
    assert table.datasets == ("aime-ai/aime", "Idavidrein/gpqa/gpqa_diamond", "cais/hle")
    assert table.algorithms == (
        "acme/orca-7b",
        "beta-lab/kestrel-13b",
        "beta-lab/kestrel-13b (With tools)",
        "gamma/wren-1b",
    )
    values = dict(zip(table.algorithms, table.values.T, strict=True))
    # "12.5%" written as text is read as the number; the run "With tools" is its own
    # algorithm, never mixed with the model's default run on the same task.
    np.testing.assert_array_equal(values["acme/orca-7b"], [33.3, 41.2, 12.5])
    np.testing.assert_array_equal(values["beta-lab/kestrel-13b (With tools)"][2], 24.0)
    assert imported.metric("score").higher_is_better is None  # the files state no direction
    assert imported.algorithm("acme/orca-7b").url == "https://huggingface.co/acme/orca-7b"
    assert imported.provenance["acme/orca-7b"]["source_name"] == "Model Card"
    assert imported.provenance["beta-lab/kestrel-13b"]["verify_token_on"] == ["aime-ai/aime"]


def test_of_two_results_of_one_model_on_one_task_the_newer_is_kept_and_the_other_listed():
    imported = _read(fixture_files(FORMAT), on_error="skip")
    (left_out,) = imported.left_out
    assert left_out.column == "acme/orca-7b/.eval_results/aime.yaml: [0].value"
    assert left_out.message == (
        "an older result of 'acme/orca-7b' on 'aime-ai/aime': the newer, at "
        "acme/orca-7b/.eval_results/aime.yaml: [1], is kept"
    )
    # The format's own rule, not a problem: listed even when the upload refuses problems.
    assert _read(fixture_files(FORMAT), on_error="refuse").left_out == (left_out,)


def test_a_lone_file_needs_the_models_name():
    files = {"gpqa.yaml": b"- dataset: {id: Idavidrein/gpqa}\n  value: 50.5\n"}
    (error,) = _errors(files)
    assert error.startswith("gpqa.yaml") and "--algorithm" in error
    imported = _read(files, algorithm="acme/orca-7b")
    assert imported.parsed.algorithms == ("acme/orca-7b",)


@pytest.mark.parametrize(
    "text, named",
    [
        (b"- dataset: {task_id: x}\n  value: 1\n", "[0].dataset.id: missing key"),
        (b"- dataset: {id: a/b}\n", "[0].value: missing key"),
        (b"- dataset: {id: a/b}\n  value: lots\n", "[0].value: expected a number, got"),
        (b"- dataset: {id: a/b}\n  value: .nan\n", "[0].value: expected a finite number"),
        (b"- dataset: {id: a/b}\n  value: " + b"9" * 400 + b"\n", "[0].value: expected a finite"),
        (b"just text\n", "expected a list of results"),
        (b"- [1, 2]\n", "[0]: expected a result"),
        (b"- dataset: {id: a/b\n", "is not valid YAML"),
        (b"\xff\xfe- dataset\n", "is not UTF-8 text"),
    ],
)
def test_a_bad_result_is_named_by_file_and_key(text, named):
    path = "acme/orca-7b/.eval_results/x.yaml"
    errors = _errors({path: text})
    assert any(error.startswith(path) and named in error for error in errors), errors


def test_yaml_aliases_and_digit_bombs_are_refused_unexpanded():
    laughs = b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + b"".join(
        b"%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n" % ((c + 1, c + 1) + (c,) * 9)
        for c in range(ord("a"), ord("i"))
    )
    path = "acme/orca-7b/.eval_results/bomb.yaml"
    (error,) = _errors({path: laughs})
    assert "aliases (*name) are not read" in error
    (error,) = _errors({path: b"- value: " + b"1" * 5000 + b"\n"})
    assert error.startswith(path) and "cannot read" in error


@pytest.mark.django_db
def test_the_command_imports_the_repositories_into_a_new_benchmark_once_directed():
    args = [str(FIXTURES / "eval-results"), "--format", FORMAT, "--benchmark", "hub"]
    with pytest.raises(CommandError, match=r"'score'.*--direction"):
        call_command("import_results", *args, stdout=StringIO(), stderr=StringIO())
    assert not Benchmark.objects.exists()
    out = StringIO()
    call_command("import_results", *args, "--direction=higher", stdout=out, stderr=StringIO())
    assert "imported 10 results (eval-results)" in out.getvalue()
    assert Benchmark.objects.get(slug="hub").submissions.count() == 4
