import re

import pytest

from leaderboard.models import Metric
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db
URL = "/b/cat/maintain/catalogue/"


@pytest.fixture
def maintainer(client):
    user = make_user("keeper")
    benchmark = make_benchmark("cat", allow_new_datasets=False)
    benchmark.maintainers.add(user)
    client.force_login(user)
    return benchmark


def test_maintainers_declare_datasets_and_skip_known_names(client, maintainer):
    maintainer.datasets.create(name="iris", declared=True)
    response = client.post(URL, {"action": "datasets", "names": "iris\n wine \n\nadult\nwine"})
    assert response.status_code == 302
    assert sorted(maintainer.datasets.values_list("name", flat=True)) == ["adult", "iris", "wine"]
    page = client.get(URL).content.decode()
    assert "Added 2 datasets." in page and 'href="/b/cat/datasets/adult/"' in page


def test_maintainers_add_a_metric_and_a_duplicate_is_refused(client, maintainer):
    response = client.post(URL, {"action": "metric", "name": "log loss", "direction": "lower"})
    assert response.status_code == 302
    assert maintainer.metrics.get(name="log loss").direction == Metric.Direction.LOWER
    again = client.post(URL, {"action": "metric", "name": "log loss", "direction": "lower"})
    assert again.status_code == 200
    assert "metric &#x27;log loss&#x27; is listed twice" in again.content.decode()
    assert maintainer.metrics.count() == 2


def test_others_cannot_change_the_catalogue(client, maintainer):
    client.force_login(make_user("stranger"))
    response = client.post(URL, {"action": "datasets", "names": "sneaky"})
    assert response.status_code == 403
    assert not maintainer.datasets.filter(name="sneaky").exists()


def test_maintainers_set_and_clear_a_metrics_region_of_practical_equivalence(client, maintainer):
    response = client.post(URL, {"action": "rope", "metric": "score", "rope": "0.01"})
    assert response.status_code == 302
    assert maintainer.metrics.get(name="score").rope == 0.01
    assert "region of practical equivalence: ±0.01" in client.get(URL).content.decode()
    negative = client.post(URL, {"action": "rope", "metric": "score", "rope": "-1"})
    assert negative.status_code == 200 and maintainer.metrics.get(name="score").rope == 0.01
    unknown = client.post(URL, {"action": "rope", "metric": "nope", "rope": "0.1"})
    assert "Choose one of this benchmark" in unknown.content.decode()
    cleared = client.post(URL, {"action": "rope", "metric": "score", "rope": ""})
    assert cleared.status_code == 302 and maintainer.metrics.get(name="score").rope is None


def test_the_rope_metric_is_a_select_of_the_benchmarks_metrics_and_labels_are_distinct(
    client, maintainer
):
    maintainer.metrics.create(name="log loss", direction=Metric.Direction.LOWER)
    page = client.get(URL).content.decode()
    rope_form = page[page.index('data-testid="metric-rope-form"') :]
    rope_form = rope_form[: rope_form.index("</form>")]
    assert '<select name="metric"' in rope_form
    assert '<option value="log loss">log loss</option>' in rope_form
    labels = re.findall(r'<label for="([^"]+)">([^<]+)', page)
    ids = [target for target, _ in labels]
    assert len(ids) == len(set(ids)), "two fields share an id"
    assert [text for _, text in labels].count("Metric") <= 1


def test_maintainers_describe_a_dataset_and_readers_see_it(client, maintainer):
    maintainer.datasets.create(name="iris", declared=True)
    response = client.post(
        URL,
        {
            "action": "describe",
            "name": "iris",
            "description": "Fisher's 150 flowers.",
            "url": "https://archive.ics.uci.edu/dataset/53/iris",
            "domain": "botany",
        },
    )
    assert response.status_code == 302
    dataset = maintainer.datasets.get(name="iris")
    assert (dataset.domain, dataset.url) == (
        "botany",
        "https://archive.ics.uci.edu/dataset/53/iris",
    )
    page = client.get("/b/cat/datasets/iris/").content.decode()
    assert "Fisher&#x27;s 150 flowers." in page and "Domain: botany" in page
    assert 'href="https://archive.ics.uci.edu/dataset/53/iris"' in page
    index = client.get("/b/cat/datasets/").content.decode()
    assert "botany" in index and "Fisher&#x27;s 150 flowers." in index
    # a declared dataset is public: the API lists it with the same facts
    (listed,) = client.get("/api/benchmarks/cat/datasets/").json()["results"]
    assert (listed["url"], listed["domain"]) == (dataset.url, "botany")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("url", "javascript:alert(1)", "must be an absolute http:// or https:// URL"),
        ("url", "ftp://example.org/data", "must be an absolute http:// or https:// URL"),
        ("url", "https://example.org/" + "a" * 600, "longer than 500 characters"),
        ("description", "x" * 2001, "the limit is 2000"),
        ("domain", "d" * 101, "the limit is 100"),
        ("domain", "bad\u202ename", "domain"),
    ],
)
def test_a_dataset_description_is_validated(client, maintainer, field, value, message):
    maintainer.datasets.create(name="iris", declared=True)
    data = {"action": "describe", "name": "iris", "description": "", "url": "", "domain": ""}
    response = client.post(URL, {**data, field: value})
    assert response.status_code == 200
    assert message in response.content.decode()
    dataset = maintainer.datasets.get(name="iris")
    assert (dataset.description, dataset.url, dataset.domain) == ("", "", "")


def test_others_cannot_describe_a_dataset(client, maintainer):
    maintainer.datasets.create(name="iris", declared=True)
    client.force_login(make_user("stranger"))
    response = client.post(
        URL, {"action": "describe", "name": "iris", "description": "spam", "url": "", "domain": ""}
    )
    assert response.status_code == 403
    assert maintainer.datasets.get(name="iris").description == ""
