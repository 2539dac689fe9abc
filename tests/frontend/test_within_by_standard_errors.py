"""lighteval's results (no folds, ``acc_norm_stderr`` per score) on the dataset page and the
head-to-head page: a pair within the files' combined standard errors is shown as not
separable, not as a win (issue 42)."""

from __future__ import annotations

import pytest

from tests.ingest.helpers import lighteval_imported

pytestmark = pytest.mark.django_db

LLAMA, FALCON, MISTRAL = (
    "meta-llama/Llama-2-7b-hf",
    "tiiuae/falcon-7b",
    "mistralai/Mistral-7B-v0.1",
)


@pytest.fixture
def lite():
    lighteval_imported("lite-se")


def _outcomes(html: str) -> dict[frozenset[str], str]:
    table = html.split('data-testid="by-errors-table"')[1].split("</table>")[0]
    outcomes = {}
    for row in table.split('data-testid="by-errors-row">')[1:]:
        a = row.split('<th scope="row">')[1].split("</th>")[0]
        b = row.split("<td>")[1].split("</td>")[0]
        outcomes[frozenset((a, b))] = row.split("<td>")[-1].split("</td>")[0]
    return outcomes


def test_the_dataset_page_tests_pairs_by_the_files_standard_errors(client, lite):
    html = client.get("/b/lite-se/datasets/hellaswag/", {"metric": "acc_norm"}).content.decode()
    assert 'data-testid="tukey-not-applicable"' not in html
    # hellaswag acc_norm: Llama-2 0.7859, Falcon 0.7813 (z = 0.88), Mistral 0.8331; SE 0.0037.
    assert _outcomes(html) == {
        frozenset((LLAMA, FALCON)): "not separable",
        frozenset((LLAMA, MISTRAL)): f"{MISTRAL} better",
        frozenset((MISTRAL, FALCON)): f"{MISTRAL} better",
    }


def test_the_head_to_head_page_says_not_separable_instead_of_a_win(client, lite):
    html = client.get(
        "/b/lite-se/compare/", {"a": LLAMA, "b": FALCON, "metric": "acc_norm"}, follow=True
    ).content.decode()
    summary = html.split('data-testid="pair-by-errors-summary">')[1].split("</p>")[0]
    # arc:challenge (0.5307 vs 0.4787, SE 0.0143: z 2.57, Holm p 0.03) separates them;
    # hellaswag does not.
    assert "better beyond the combined uncertainty on 1, " in summary
    assert f"{FALCON} on 0, and the two are not separable on 1" in summary
    assert "win, not separable by the standard errors" in html
