"""Look-alike names: they were accepted beside the original.

``bаse1`` (Cyrillic а) and ``bᴀse1`` (small capital A) were stored as new algorithms
next to ``base1``. A new name whose Unicode confusable skeleton (UTS #39) is a listed
name's is now refused, "looks like 'base1'", from every entry point.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.confusables import lookalikes_new, skeleton
from leaderboard.models import Algorithm, Benchmark, Dataset
from leaderboard.services import (
    ScoreInput,
    SubmissionInput,
    ValidationFailed,
    benchmark_datasets_add,
    catalogue_entry_rename,
    submission_create,
)
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db

CYRILLIC = "b\u0430se1"  # а
SMALL_CAPITAL = "b\u1d00se1"  # ᴀ
FULLWIDTH = "\uff42\uff41\uff53\uff45\uff11"


def test_the_skeletons_of_the_reported_names_are_the_originals():
    assert skeleton(CYRILLIC) == skeleton("base1")
    found = lookalikes_new(
        kind="algorithm",
        names=[CYRILLIC, SMALL_CAPITAL, FULLWIDTH, "Base1", "base2", "svm"],
        listed=["base1", "SVM"],
    )
    assert found == [(CYRILLIC, "base1"), (SMALL_CAPITAL, "base1"), (FULLWIDTH, "base1")]


@pytest.fixture
def benchmark():
    benchmark = make_benchmark("open", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    submission_create(
        benchmark=benchmark,
        submitter=make_user("author"),
        entry=SubmissionInput(algorithm="base1", scores=[ScoreInput(dataset="iris", value=0.9)]),
        new_datasets_confirmed=True,
    )
    return benchmark


def _api():
    client = APIClient()
    client.force_login(make_user("attacker"))
    return client


@pytest.mark.parametrize("name", [CYRILLIC, SMALL_CAPITAL])
def test_the_api_refuses_a_look_alike_algorithm(benchmark, name, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    response = _api().post(
        "/api/benchmarks/open/submissions/create/",
        {"algorithm": name, "scores": [{"dataset": "iris", "value": 0.99}]},
        format="json",
    )
    assert response.status_code == 400
    assert "looks like 'base1'" in response.content.decode()
    assert not Algorithm.objects.filter(name=name).exists()


def test_a_results_file_with_a_look_alike_algorithm_or_dataset_is_refused(benchmark, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    csv = f"dataset,algorithm,score\niris,{CYRILLIC},0.5\n\u0456ris,other,0.5\n".encode()
    response = _api().post(
        "/api/benchmarks/open/submissions/upload/",
        {
            "file": SimpleUploadedFile("r.csv", csv, content_type="text/csv"),
            "allow_new_datasets": "true",
        },
        format="multipart",
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "looks like 'base1'" in body and "looks like 'iris'" in body


def test_the_web_form_refuses_a_look_alike_algorithm(benchmark):
    web = Client()
    web.force_login(make_user("attacker"))
    response = web.post(
        "/b/open/submit/",
        {
            "idempotency_key": "k1",
            "algorithm": SMALL_CAPITAL,
            "metric": "score",
            "folds": "1",
            "grid-rows": "1",
            "grid-folds": "1",
            "grid-0-dataset": "iris",
            "grid-0-0": "0.7",
            "action": "submit",
        },
    )
    assert response.status_code == 200
    assert "looks like &#x27;base1&#x27;" in response.content.decode()
    assert not Algorithm.objects.filter(name=SMALL_CAPITAL).exists()


def test_maintainers_cannot_declare_or_rename_to_a_look_alike(benchmark):
    maintainer = make_user("maintainer")
    benchmark.maintainers.add(maintainer)
    with pytest.raises(ValidationFailed, match="looks like 'iris'"):
        benchmark_datasets_add(benchmark=benchmark, user=maintainer, names=["\u0456ris"])
    Dataset.objects.create(benchmark=benchmark, name="unused")
    with pytest.raises(ValidationFailed, match="looks like 'iris'"):
        catalogue_entry_rename(
            benchmark=benchmark, user=maintainer, kind="dataset", name="unused", new_name="ıris"
        )
