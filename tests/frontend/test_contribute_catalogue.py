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
    assert "no metric of that name" in unknown.content.decode()
    cleared = client.post(URL, {"action": "rope", "metric": "score", "rope": ""})
    assert cleared.status_code == 302 and maintainer.metrics.get(name="score").rope is None
