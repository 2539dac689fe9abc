"""DRF's browsable API keeps to the Content-Security-Policy (no 'unsafe-inline').

A real Chromium checks a page of it (tests/browser/test_csp.py); here the markup of each
of its page types, for a reader and for a maintainer (who also gets the forms and the
log-out button), is searched for what the policy refuses, and the parts of DRF's
base.html that templates/rest_framework/api.html leaves alone are shown never to render.
"""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, reverse
from rest_framework.viewsets import ViewSetMixin

from leaderboard.api import urls as api_urls
from tests.api.conftest import client_for
from tests.factories import make_submission

pytestmark = pytest.mark.django_db

# A <style> element, or a style or event-handler attribute in a tag.
REFUSED = re.compile(r"<style\b|<[a-z][^>]*\s(?:style|on[a-z]+)\s*=", re.IGNORECASE)


def browsable_pages(benchmark) -> list[str]:
    submission = make_submission(benchmark, "A", {"d1": 0.5, "d2": 0.6})
    slug = benchmark.slug
    return [
        reverse("api-benchmark-list"),
        reverse("api-benchmark-detail", args=[slug]),
        reverse("api-benchmark-create"),  # POST only: its forms
        reverse("api-benchmark-update", args=[slug]),
        reverse("api-submission-list", args=[slug]),
        reverse("api-submission-detail", args=[slug, submission.pk]),
        reverse("api-submission-create", args=[slug]),
        reverse("api-dataset-rename", args=[slug]),
        reverse("api-token-list"),
        reverse("api-token-create"),
    ]


@pytest.mark.parametrize("who", ["reader", "maintainer"])
def test_browsable_pages_have_no_inline_style_or_script(who, client, maintainer, benchmark):
    browser = client if who == "reader" else client_for(maintainer)
    for path in browsable_pages(benchmark):
        response = browser.get(path, HTTP_ACCEPT="text/html")
        html = response.content.decode()
        assert response["Content-Type"].startswith("text/html"), path
        assert "rest_framework/css/bootstrap.min.css" in html, path
        assert REFUSED.findall(html) == [], path
    if who == "maintainer":
        page = browser.get(reverse("api-benchmark-create"), HTTP_ACCEPT="text/html")
        assert 'data-testid="api-logout"' in page.content.decode()
        assert 'method="POST"' in page.content.decode()  # its forms were checked too


def test_browsable_api_links_to_the_sites_own_log_in(client):
    page = client.get(reverse("api-benchmark-list"), HTTP_ACCEPT="text/html").content.decode()
    assert f'href="{reverse("account_login")}?next=/api/benchmarks/"' in page


def _api_views(patterns) -> list[type]:
    views = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            views += _api_views(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            views.append(pattern.callback.cls)
    return views


def test_no_api_view_shows_the_buttons_that_base_html_styles_inline():
    """base.html gives the extra-actions menu (a ViewSet's @action) and the filter button
    (a filter backend with a form) style attributes; api.html does not override them
    because no view has either. A view that adds one needs those blocks overridden."""
    views = _api_views(api_urls.urlpatterns)
    assert len(views) > 20
    for view in views:
        assert not issubclass(view, ViewSetMixin), view
        assert not getattr(view, "filter_backends", ()), view
