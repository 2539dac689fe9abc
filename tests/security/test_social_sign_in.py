"""Optional sign-in with GitHub and ORCID (django-allauth's providers).

Offered only when the operator set a provider's client id and secret: without them the
buttons are absent and the provider's URLs are 404s. The providers' answers are mocked
at the HTTP client (there is no internet here): every request allauth makes goes
through ``requests.Session.request``, which these tests answer with the JSON each
provider documents; everything else (allauth's views, state check, account creation,
e-mail confirmation) runs for real. A provider's account gets no confirmed address it
did not prove, and no way around the ownership rules.
"""

from __future__ import annotations

import importlib
import json
import re
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import clear_url_caches

from leaderboard.models import Benchmark
from leaderboard.notifications import email_is_verified
from leaderboard.services import PermissionDenied, ScoreInput, SubmissionInput, submission_create
from tests.factories import make_benchmark, make_user

pytestmark = pytest.mark.django_db

PROVIDERS = {
    "github": {
        "APPS": [{"client_id": "gh-client", "secret": "gh-secret"}],
        "SCOPE": ["read:user", "user:email"],
    },
    "orcid": {"APPS": [{"client_id": "APP-ORCID", "secret": "orcid-secret"}]},
}


def _reload_urls() -> None:
    # The provider URLs are chosen when the URL modules are imported (as at start-up).
    import config.urls
    import frontend.accounts.urls
    import frontend.urls

    for module in (frontend.accounts.urls, frontend.urls, config.urls):
        importlib.reload(module)
    clear_url_caches()


@pytest.fixture
def providers_on(settings):
    settings.SOCIALACCOUNT_PROVIDERS = PROVIDERS
    _reload_urls()
    yield
    settings.SOCIALACCOUNT_PROVIDERS = {}
    _reload_urls()


def _json(url: str, body, status: int = 200) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps(body).encode()
    response.headers["Content-Type"] = "application/json"
    response.url = url
    return response


@pytest.fixture
def provider_answers(monkeypatch):
    """``answers[url prefix] = JSON``: what the provider's server says; any other
    request fails the test (nothing may leave the machine)."""
    answers: dict[str, object] = {}
    asked: list[str] = []

    def request(self, method, url, *args, **kwargs):
        asked.append(url)
        for prefix, body in answers.items():
            if url.startswith(prefix):
                return _json(url, body)
        raise AssertionError(f"unexpected request to {method} {url}")

    monkeypatch.setattr(requests.Session, "request", request)
    answers["__asked__"] = asked
    return answers


def _sign_in(client: Client, provider: str, process: str = "login"):
    """Press the provider's button, come back from the provider with a code."""
    started = client.post(f"/account/{provider}/login/", {"process": process})
    assert started.status_code == 302, started.content[:300]
    state = parse_qs(urlparse(started["Location"]).query)["state"][0]
    return client.get(f"/account/{provider}/login/callback/", {"code": "c0de", "state": state})


def _github(answers, *, verified: bool) -> None:
    answers["https://github.com/login/oauth/access_token"] = {
        "access_token": "gho_t",
        "token_type": "bearer",
        "scope": "read:user,user:email",
    }
    answers["https://api.github.com/user/emails"] = [
        {"email": "octo@example.org", "verified": verified, "primary": True}
    ]
    answers["https://api.github.com/user"] = {"id": 583231, "login": "octocat", "name": "Octo"}


def _orcid(answers) -> None:
    answers["https://pub.orcid.org/oauth/token"] = {
        "access_token": "orcid-t",
        "token_type": "bearer",
        "orcid": "0000-0002-1825-0097",
        "name": "Josiah Carberry",
    }
    answers["https://pub.orcid.org/v3.0/0000-0002-1825-0097/record"] = {
        "orcid-identifier": {"path": "0000-0002-1825-0097"},
        "person": {
            "name": {"given-names": {"value": "Josiah"}, "family-name": {"value": "Carberry"}},
            "emails": {"email": [{"email": "josiah@example.org"}]},
        },
    }


def test_without_client_ids_the_buttons_are_absent_and_the_urls_404(client):
    for path in ("/account/login/", "/account/signup/"):
        page = client.get(path).content.decode()
        assert 'data-testid="sign-in-providers"' not in page
    for provider in ("github", "orcid"):
        assert client.get(f"/account/{provider}/login/").status_code == 404
        assert client.post(f"/account/{provider}/login/").status_code == 404
        assert client.get(f"/account/{provider}/login/callback/").status_code == 404


def test_the_settings_read_the_client_ids_from_the_environment(monkeypatch):
    import config.settings.base as base

    monkeypatch.setenv("PODIUM_GITHUB_CLIENT_ID", "from-env")
    monkeypatch.setenv("PODIUM_GITHUB_CLIENT_SECRET", "s3cret")
    monkeypatch.delenv("PODIUM_ORCID_CLIENT_ID", raising=False)
    monkeypatch.setenv("PODIUM_ORCID_CLIENT_SECRET", "half-configured")
    try:
        providers = importlib.reload(base).SOCIALACCOUNT_PROVIDERS
    finally:
        monkeypatch.undo()
        importlib.reload(base)
    assert list(providers) == ["github"]  # ORCID lacks its id: not offered
    assert providers["github"]["APPS"] == [{"client_id": "from-env", "secret": "s3cret"}]


def test_with_client_ids_the_login_and_signup_pages_offer_the_buttons(client, providers_on):
    for path in ("/account/login/", "/account/signup/"):
        page = client.get(path).content.decode()
        assert 'data-testid="sign-in-github"' in page and 'data-testid="sign-in-orcid"' in page
        assert 'action="/account/github/login/"' in page
    started = client.post("/account/github/login/", {"process": "login"})
    location = urlparse(started["Location"])
    assert (location.netloc, location.path) == ("github.com", "/login/oauth/authorize")
    assert parse_qs(location.query)["client_id"] == ["gh-client"]


def test_a_github_login_creates_an_account_with_the_address_github_verified(
    client, providers_on, provider_answers
):
    _github(provider_answers, verified=True)
    response = _sign_in(client, "github")
    assert response.status_code == 302 and response.url == "/account/"
    user = get_user_model().objects.get(username="octocat")
    assert SocialAccount.objects.get(provider="github").user == user
    assert "_auth_user_id" in client.session
    assert email_is_verified(user)  # GitHub's own verification of the address
    assert mail.outbox == []
    # The token exchange carried the operator's client id and secret, nothing else left.
    asked = provider_answers["__asked__"]
    assert asked[0] == "https://github.com/login/oauth/access_token"
    assert all(url.startswith("https://github.com/") or "api.github.com" in url for url in asked)


def test_an_address_github_did_not_verify_must_be_confirmed_before_any_login(
    client, providers_on, provider_answers
):
    _github(provider_answers, verified=False)
    response = _sign_in(client, "github")
    assert response.status_code == 302 and response.url == "/account/confirm-email/"
    assert "_auth_user_id" not in client.session
    user = get_user_model().objects.get(username="octocat")
    assert not email_is_verified(user)
    (link,) = mail.outbox
    assert link.to == ["octo@example.org"] and "confirm" in link.subject


def test_an_orcid_login_creates_an_account_whose_address_is_not_trusted(
    client, providers_on, provider_answers
):
    """ORCID does not say an address is verified: allauth mails it a link, and nobody
    logs in (or gets mail about submissions) until it is opened."""
    _orcid(provider_answers)
    response = _sign_in(client, "orcid")
    assert response.status_code == 302 and response.url == "/account/confirm-email/"
    assert "_auth_user_id" not in client.session
    account = SocialAccount.objects.get(provider="orcid")
    assert account.uid == "0000-0002-1825-0097"
    user = account.user
    assert user.email == "josiah@example.org" and not email_is_verified(user)
    (link_mail,) = mail.outbox
    link = re.search(r"https?://[^/]+(/account/email/verify/\S+/)", link_mail.body).group(1)
    assert client.post(link).status_code == 302
    assert email_is_verified(user)


def test_a_logged_in_researcher_links_github_to_the_account(client, providers_on, provider_answers):
    _github(provider_answers, verified=True)
    researcher = make_user("researcher")
    client.force_login(researcher)
    response = _sign_in(client, "github", process="connect")
    assert response.status_code == 302
    assert SocialAccount.objects.get(provider="github").user == researcher
    assert not get_user_model().objects.filter(username="octocat").exists()
    # Next time GitHub logs the same person into the same account.
    client.logout()
    assert _sign_in(Client(), "github").status_code == 302
    assert get_user_model().objects.count() == 1


def test_a_provider_address_never_logs_into_an_existing_account(
    client, providers_on, provider_answers
):
    """An address a provider reports is no proof of owning the Podium account that has
    it: no automatic log-in or linking by address."""
    owner = make_user("owner")
    owner.email = "octo@example.org"
    owner.save()
    EmailAddress.objects.create(user=owner, email=owner.email, verified=True, primary=True)
    _github(provider_answers, verified=True)
    response = _sign_in(client, "github")
    assert client.session.get("_auth_user_id") != str(owner.pk)
    assert not SocialAccount.objects.filter(user=owner).exists()
    assert response.status_code in (200, 302)


def test_an_account_made_by_a_provider_follows_the_ownership_rules(
    client, providers_on, provider_answers
):
    benchmark = make_benchmark("open", submission_policy=Benchmark.SubmissionPolicy.OPEN)
    owner = make_user("owner")
    scores = [ScoreInput(dataset="d1", value=0.8), ScoreInput(dataset="d2", value=0.7)]
    entry = SubmissionInput(algorithm="base1", scores=scores)
    submission_create(
        benchmark=benchmark, submitter=owner, entry=entry, new_datasets_confirmed=True
    )
    _github(provider_answers, verified=True)
    _sign_in(client, "github")
    newcomer = get_user_model().objects.get(username="octocat")
    with pytest.raises(PermissionDenied, match="owner"):
        submission_create(
            benchmark=benchmark, submitter=newcomer, entry=entry, new_datasets_confirmed=True
        )
