import pytest

from leaderboard.models import Benchmark
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db


def test_pages_respect_visibility(client):
    make_benchmark("open-one")
    make_benchmark("hidden-link", visibility=Benchmark.Visibility.UNLISTED)
    private = make_benchmark("secret", visibility=Benchmark.Visibility.PRIVATE)
    index = client.get("/").content.decode()
    assert "open-one" in index and "hidden-link" not in index and "secret" not in index
    assert client.get("/b/hidden-link/").status_code == 200
    assert client.get("/b/secret/").status_code == 404

    maintainer = make_user("maintainer")
    private.maintainers.add(maintainer)
    client.force_login(maintainer)
    assert client.get("/b/secret/").status_code == 200
    assert "secret" in client.get("/").content.decode()


def test_index_search(client):
    make_benchmark("tabular-study")
    make_benchmark("vision-study")
    page = client.get("/?q=tabular").content.decode()
    assert "tabular-study" in page and "vision-study" not in page
