"""Account pages through the Django test client: sign up, log in/out, tokens, my submissions."""

import re
from html.parser import HTMLParser

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from leaderboard.models import ApiToken, Submission
from leaderboard.selectors import api_token_get_active
from tests.factories import make_benchmark, make_submission, make_user

pytestmark = pytest.mark.django_db


def test_signup_validates_the_password_and_logs_in_once_the_address_is_confirmed(client):
    from django.core import mail

    page = client.get("/account/signup/")
    assert page.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in page.content.decode()
    refused = client.post(
        "/account/signup/",
        {"username": "ada", "email": "ada@example.org", "password1": "123", "password2": "123"},
    )
    body = refused.content.decode()
    assert refused.status_code == 200
    assert 'data-testid="error-summary"' in body and 'href="#id_password1"' in body
    assert "too short" in body and 'value="ada"' in body
    assert not get_user_model().objects.filter(username="ada").exists()

    created = client.post(
        "/account/signup/",
        {
            "username": "ada",
            "email": "ada@example.org",
            "password1": "analytical-engine-1843",
            "password2": "analytical-engine-1843",
        },
    )
    assert created.status_code == 302 and created.url == "/account/confirm-email/"
    user = get_user_model().objects.get(username="ada")
    assert user.email == "ada@example.org" and user.check_password("analytical-engine-1843")
    assert client.get("/account/").status_code == 302  # not logged in before confirming
    (message,) = mail.outbox
    link = re.search(r"https?://[^/]+(/account/email/verify/\S+/)", message.body).group(1)
    page = client.get(link)  # the link asks; only the button confirms
    assert page.status_code == 200 and not EmailAddress.objects.get(user=user).verified
    assert 'data-testid="email-confirm"' in page.content.decode()
    confirmed = client.post(link)
    assert confirmed.status_code == 302 and confirmed.url == "/account/"
    assert "ada" in client.get("/account/").content.decode()


def test_login_and_logout(client):
    make_user("grace")
    assert client.get("/account/tokens/").url.startswith("/account/login/?next=")
    wrong = client.post("/account/login/", {"login": "grace", "password": "nope"})
    assert wrong.status_code == 200 and 'data-testid="error-summary"' in wrong.content.decode()
    ok = client.post(
        "/account/login/",
        {"login": "grace", "password": "pw-for-tests-only", "next": "/account/tokens/"},
    )
    assert ok.status_code == 302 and ok.url == "/account/tokens/"
    assert client.get("/account/tokens/").status_code == 200
    assert client.get("/account/logout/").status_code == 405  # logging out is a POST
    out = client.post("/account/logout/")
    assert out.status_code == 302 and out.url == "/"
    assert client.get("/account/tokens/").status_code == 302


def test_token_is_shown_once_and_can_be_revoked(client):
    user = make_user("alan")
    client.force_login(user)
    created = client.post("/account/tokens/", {"name": "laptop"}, follow=True)
    body = created.content.decode()
    assert created.redirect_chain == [("/account/tokens/", 302)]  # a reload re-posts nothing
    assert "no-store" in created.headers.get("Cache-Control", "")
    raw = re.search(r'value="(pod_[^"]+)"', body).group(1)
    token = api_token_get_active(raw=raw)
    assert token is not None and token.name == "laptop" and token.user == user

    listing = client.get("/account/tokens/").content.decode()
    assert raw not in listing  # shown once only
    assert token.prefix in listing and "laptop" in listing and "never" in listing

    empty = client.post("/account/tokens/", {"name": "  "})
    assert empty.status_code == 200 and 'href="#id_name"' in empty.content.decode()

    confirm = client.get(f"/account/tokens/{token.pk}/revoke/")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.content.decode()
    assert api_token_get_active(raw=raw) is not None  # GET changes nothing
    revoked = client.post(f"/account/tokens/{token.pk}/revoke/")
    assert revoked.status_code == 302
    assert api_token_get_active(raw=raw) is None
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
    after = client.get("/account/tokens/").content.decode()
    assert 'data-testid="token-row"' not in after and 'data-testid="token-list-empty"' in after


def test_someone_elses_token_is_not_found(client):
    owner = make_user("owner")
    client.force_login(owner)
    client.post("/account/tokens/", {"name": "mine"})
    token = ApiToken.objects.get(user=owner)
    client.force_login(make_user("intruder"))
    assert client.post(f"/account/tokens/{token.pk}/revoke/").status_code == 404
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None


def test_my_submissions_lists_status_and_notes_and_withdraws(client):
    researcher = make_user("researcher")
    benchmark = make_benchmark("study")
    other = make_benchmark("other-study", submission_policy="open")
    pending = make_submission(benchmark, "mine-a", {"d1": 0.5, "d2": 0.6}, submitter=researcher)
    accepted = make_submission(other, "mine-b", {"d1": 0.7}, submitter=researcher)
    make_submission(benchmark, "not-mine", {"d1": 0.1})
    maintainer = make_user("boss")
    benchmark.maintainers.add(maintainer)
    rejected = make_submission(benchmark, "mine-c", {"d1": 0.2}, submitter=researcher)
    from leaderboard.services import submission_reject

    submission_reject(submission=rejected, user=maintainer, note="Fold 3 is missing.")

    client.force_login(researcher)
    body = client.get("/account/submissions/").content.decode()
    assert "mine-a" in body and "mine-b" in body and "mine-c" in body
    assert "not-mine" not in body
    assert "Fold 3 is missing." in body
    assert body.count("via the API") == 3  # the source's label, not "via Api"
    for status in ("pending", "accepted", "rejected"):
        assert f'data-status="{status}"' in body
    assert accepted.status == Submission.Status.ACCEPTED

    confirm = client.get(f"/account/submissions/{pending.pk}/withdraw/")
    assert confirm.status_code == 200
    assert client.post(f"/account/submissions/{pending.pk}/withdraw/").status_code == 302
    pending.refresh_from_db()
    assert pending.status == Submission.Status.WITHDRAWN
    assert 'data-status="withdrawn"' in client.get("/account/submissions/").content.decode()


def test_cannot_withdraw_someone_elses_submission(client):
    benchmark = make_benchmark("study")
    theirs = make_submission(benchmark, "theirs", {"d1": 0.5})
    client.force_login(make_user("stranger"))
    assert client.post(f"/account/submissions/{theirs.pk}/withdraw/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == Submission.Status.PENDING


def test_withdrawing_twice_on_the_site_says_it_is_already_withdrawn(client):
    researcher = make_user("researcher")
    mine = make_submission(make_benchmark("study"), "mine", {"d1": 0.5}, submitter=researcher)
    client.force_login(researcher)
    path = f"/account/submissions/{mine.pk}/withdraw/"
    assert client.post(path).status_code == 302
    second = client.post(path, follow=True)  # a second tab, a double click
    assert second.status_code == 200
    assert f"submission {mine.pk} is already withdrawn" in second.content.decode()


def test_the_account_page_sends_the_confirmation_link_again(client):
    from allauth.account.models import EmailAddress
    from django.core import mail

    user = make_user("grace")
    user.email = "grace@example.org"  # typed in by an operator: no allauth record yet
    user.save()
    client.force_login(user)
    assert 'data-testid="email-unverified"' in client.get("/account/").content.decode()
    sent = client.post("/account/email/verify/", follow=True)
    assert "We sent a new link to grace@example.org" in sent.content.decode()
    (message,) = mail.outbox
    assert message.to == ["grace@example.org"]
    link = re.search(r"https?://[^/]+(/account/email/verify/\S+/)", message.body).group(1)
    assert client.post(link).status_code == 302
    assert EmailAddress.objects.get(user=user).verified
    assert 'data-testid="email-verified"' in client.get("/account/").content.decode()


def test_the_login_page_offers_the_password_reset_once(client):
    body = client.get("/account/login/").content.decode()
    assert body.count("Forgot your password?") == 1
    assert body.count('href="/account/password/reset/"') == 1


class _BlockInParagraph(HTMLParser):
    """Block elements opened inside a <p>: the browser closes the <p> before them, so
    the help text's list ends up outside its paragraph (and its styling)."""

    BLOCKS = {"ul", "ol", "div", "table", "p", "form", "section", "h2", "h3"}

    def __init__(self) -> None:
        super().__init__()
        self.open_paragraphs = 0
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.BLOCKS and self.open_paragraphs:
            self.found.append(f"<{tag}> at line {self.getpos()[0]}")
        if tag == "p":
            self.open_paragraphs += 1

    def handle_endtag(self, tag):
        if tag == "p" and self.open_paragraphs:
            self.open_paragraphs -= 1


def test_account_forms_put_no_block_inside_a_paragraph(client):
    # The password rules are Django's <ul>; a field's help was a <p>, which cannot hold it.
    pages = ["/account/signup/", "/account/login/", "/account/password/reset/", "change"]
    for page in pages:
        if page == "change":  # the one page of the four that needs a user
            client.force_login(make_user("grace"))
            page = "/account/password/change/"
        response = client.get(page)
        assert response.status_code == 200, page
        checker = _BlockInParagraph()
        checker.feed(response.content.decode())
        assert checker.found == [], page
    assert "<ul" in response.content.decode()  # the rules' list is there, in its <div>
