"""Researchers, maintainers and readers go through Podium's flows in a real Chromium.

Accounts (sign up, API tokens), submitting results (CSV upload with preview and
confirmation, the web-form grid), moderation with a live leaderboard in another tab,
the estimator switcher with and without JavaScript, exports, and the charts and
methods pages on a desktop and a phone.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser import helpers

SLUG = "demsar-2006"
NEW_ALGORITHM = "Podium-Test"
# The page polls every few seconds (frontend/readers/views.py POLL_SECONDS).
UPDATE_TIMEOUT_MS = 30_000


# --- data -------------------------------------------------------------------------------


@pytest.fixture
def moderated(demo_site) -> None:
    """Demšar's demo is open (it counts on arrival); these flows need it moderated."""
    from leaderboard.models import Benchmark

    Benchmark.objects.filter(slug=SLUG).update(
        submission_policy=Benchmark.SubmissionPolicy.MODERATED
    )


def demsar_datasets() -> list[str]:
    from leaderboard.models import Dataset

    return list(
        Dataset.objects.filter(benchmark__slug=SLUG).order_by("name").values_list("name", flat=True)
    )


def winning_scores() -> dict[str, float]:
    """A score on each of the 14 datasets at least as good as every demo algorithm's."""
    best: dict[str, float] = {}
    for row in stored_scores(submission__benchmark__slug=SLUG):
        best[row.dataset] = max(best.get(row.dataset, 0.0), row.value)
    assert len(best) == 14, best
    return {dataset: round(min(1.0, value + 0.005), 3) for dataset, value in best.items()}


def long_csv(rows: list[tuple[str, str, str]]) -> bytes:
    lines = ["dataset,algorithm,score", *(",".join(row) for row in rows)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def submissions_of(algorithm: str):
    from leaderboard.models import Submission

    return Submission.objects.filter(benchmark__slug=SLUG, algorithm__name=algorithm)


def stored_scores(**filters):
    from tests.factories import stored_scores

    return stored_scores(**filters)


def researcher(name: str = "researcher"):
    from tests.factories import make_user

    return make_user(name)


def follow_tab(tab, page_log) -> None:
    """Record a second tab's console errors and exceptions like the fixture's pages."""
    tab.on("request", lambda req: page_log.requests.append(req.url))
    tab.on(
        "console",
        lambda msg: page_log.console_errors.append(f"{msg.text} ({msg.location})")
        if msg.type == "error"
        else None,
    )
    tab.on("pageerror", lambda exc: page_log.page_errors.append(str(exc)))


def document_loads(page) -> list[str]:
    """The main-frame document requests the page makes from now on."""
    loads: list[str] = []
    page.on(
        "request",
        lambda req: loads.append(f"{req.method} {req.url}")
        if req.resource_type == "document" and req.frame == page.main_frame
        else None,
    )
    return loads


def row_order(page) -> list[str]:
    return helpers.leaderboard_rows(page).evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-algorithm'))"
    )


def probabilities_shown(page) -> list[float]:
    texts = page.locator("[data-testid=leaderboard-row] [data-testid=cell-probability]")
    return [float(text) for text in texts.all_inner_texts()]


def messages(page):
    return page.get_by_test_id("messages")


# --- 1. accounts: sign up, API token ---------------------------------------------------


def sign_up(site, page, username: str) -> None:
    page.goto(site.url("account_signup"))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Email").fill(f"{username}@example.org")
    page.locator("#id_password1").fill("a-long-Passphrase-42")
    page.locator("#id_password2").fill("a-long-Passphrase-42")
    page.get_by_test_id("signup-submit").click()
    # Nobody logs in before confirming the address: open the link mailed to it.
    expect(page).to_have_url(site.url("account_email_verification_sent"))
    from django.core import mail

    link = re.search(r"https?://\S+/account/email/verify/\S+/", mail.outbox[-1].body).group(0)
    page.goto(link)
    page.get_by_test_id("email-confirm").click()  # a GET alone confirms nothing
    expect(page).to_have_url(site.url("account-home"))


def create_token(site, page, name: str) -> str:
    page.goto(site.url("account-tokens"))
    expect(page.get_by_test_id("token-list-empty")).to_be_visible()
    page.get_by_label("Name").fill(name)
    page.get_by_test_id("token-create").click()
    created = page.get_by_test_id("token-created")
    expect(created).to_be_visible()
    expect(created).to_contain_text(name)
    raw = page.get_by_test_id("token-raw").input_value()
    assert raw.startswith("pod_") and len(raw) > 30, raw
    return raw


def test_sign_up_then_create_see_once_and_revoke_an_api_token(
    empty_site, page, new_page, screenshot
):
    from django.contrib.auth import get_user_model

    from leaderboard.models import ApiToken

    sign_up(empty_site, page, "ada")
    expect(page.locator("body")).to_contain_text("Welcome, ada")
    user = get_user_model().objects.get(username="ada")
    assert user.email == "ada@example.org" and user.check_password("a-long-Passphrase-42")

    raw = create_token(empty_site, page, "laptop")
    screenshot(page, "token-created")
    token = ApiToken.objects.get(user=user)
    assert token.revoked_at is None and raw.startswith(token.prefix)
    assert raw not in (token.key_hash, token.prefix), "the raw token is stored"
    row = page.locator(f"[data-testid=token-row][data-token-id='{token.pk}']")
    expect(row).to_contain_text(token.prefix)
    expect(row).not_to_contain_text(raw)

    # The raw value works as an API credential (a fresh context: no session cookie).
    api = new_page().context.request
    api_url = empty_site.url("api-token-list")
    response = api.get(api_url, headers={"Authorization": f"Token {raw}"})
    assert response.status == 200, response.text()
    assert [t["name"] for t in response.json()] == ["laptop"]

    # Coming back to the page: the token is listed, its raw value is gone for good.
    page.goto(empty_site.url("account-tokens"))
    expect(page.get_by_test_id("token-created")).to_have_count(0)
    expect(page.get_by_test_id("token-row")).to_have_count(1)
    assert raw not in page.content()

    row.get_by_test_id("token-revoke").click()
    expect(page.locator("h1")).to_contain_text("laptop")
    page.get_by_test_id("token-revoke-confirm").click()
    expect(page).to_have_url(empty_site.url("account-tokens"))
    expect(messages(page)).to_contain_text("is revoked")
    expect(page.get_by_test_id("token-list-empty")).to_be_visible()
    screenshot(page, "token-revoked")
    token.refresh_from_db()
    assert token.revoked_at is not None
    response = api.get(api_url, headers={"Authorization": f"Token {raw}"})
    assert response.status == 401, response.text()


def test_reloading_after_creating_a_token_neither_shows_nor_creates_one(empty_site, page):
    from leaderboard.models import ApiToken

    sign_up(empty_site, page, "grace")
    raw = create_token(empty_site, page, "laptop")
    page.reload()
    assert ApiToken.objects.filter(user__username="grace").count() == 1
    expect(page.get_by_test_id("token-created")).to_have_count(0)
    assert raw not in page.content()


# --- 2. a researcher uploads a CSV file --------------------------------------------------


def upload(page, name: str, content: bytes) -> None:
    page.get_by_label("Results file (CSV, JSON or zip)").set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": content}
    )
    page.get_by_test_id("upload-submit").click()


def test_csv_upload_shows_line_errors_then_previews_and_stores_a_pending_submission(
    demo_site, moderated, page, log_in, screenshot
):
    from leaderboard.models import Algorithm, Submission

    datasets = demsar_datasets()
    scores = winning_scores()
    log_in(page, researcher())
    before = Submission.objects.count()
    page.goto(demo_site.url("benchmark-leaderboard", SLUG))
    page.get_by_test_id("upload-link").click()
    expect(page).to_have_url(demo_site.url("contribute-upload", SLUG))

    # A file with a word for a score (line 3) and a NaN (line 5).
    bad = long_csv(
        [
            (datasets[0], NEW_ALGORITHM, "0.81"),
            (datasets[1], NEW_ALGORITHM, "good"),
            (datasets[2], NEW_ALGORITHM, "0.97"),
            (datasets[3], NEW_ALGORITHM, "NaN"),
        ]
    )
    upload(page, "bad.csv", bad)
    expect(page.get_by_test_id("error-summary")).to_be_visible()
    errors = page.get_by_test_id("file-error")
    expect(errors).to_have_count(2)
    line3 = page.locator("[data-testid=file-error][data-line='3']")
    line5 = page.locator("[data-testid=file-error][data-line='5']")
    expect(line3).to_contain_text("'good' is not a number")
    expect(line3.locator(".raw-line")).to_have_text(f"{datasets[1]},{NEW_ALGORITHM},good")
    expect(line5).to_contain_text("'NaN' is not a finite number")
    expect(line5.locator(".raw-line")).to_have_text(f"{datasets[3]},{NEW_ALGORITHM},NaN")
    summary = page.get_by_test_id("error-summary")
    expect(summary).to_contain_text("nothing was stored")
    expect(summary.locator("a[href='#file-error-0']")).to_contain_text("line 3")
    expect(summary.locator("a[href='#file-error-1']")).to_contain_text("line 5")
    screenshot(page, "line-errors")
    assert Submission.objects.count() == before
    assert not Algorithm.objects.filter(name=NEW_ALGORITHM).exists()

    # A good file: the new algorithm on all 14 datasets.
    upload(
        page, "podium-test.csv", long_csv([(d, NEW_ALGORITHM, str(scores[d])) for d in datasets])
    )
    expect(page.locator("h1")).to_have_text("Preview of podium-test.csv")
    expect(page.get_by_test_id("upload-problems")).to_have_count(0)
    expect(page.get_by_test_id("upload-rows")).to_have_text("14")
    expect(page.get_by_test_id("upload-algorithms")).to_have_text("1")
    expect(page.get_by_test_id("upload-datasets")).to_have_text("14")
    algorithm_row = page.get_by_test_id("upload-algorithm-table").locator("tbody tr")
    expect(algorithm_row).to_have_count(1)
    expect(algorithm_row).to_contain_text(NEW_ALGORITHM)
    expect(algorithm_row).to_contain_text("new")
    expect(page.get_by_test_id("upload-preview-table").locator("tbody tr")).to_have_count(14)
    confirm = page.get_by_test_id("upload-confirm")
    expect(confirm).to_have_text("Store 1 submission")
    screenshot(page, "preview")
    assert Submission.objects.count() == before, "the preview stored something"

    confirm.click()
    # The uploader lands on the board, told what happened.
    expect(page).to_have_url(demo_site.url("benchmark-leaderboard", SLUG))
    expect(messages(page)).to_contain_text(f"Stored {NEW_ALGORITHM}; waiting for a maintainer")
    page.goto(demo_site.url("account-submissions"))
    row = page.get_by_test_id("submission-row")
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-status", "pending")
    expect(row.locator("th")).to_have_text(NEW_ALGORITHM)
    expect(row.get_by_test_id("submission-status")).to_have_text(re.compile("pending", re.I))
    screenshot(page, "my-submissions")
    (submission,) = submissions_of(NEW_ALGORITHM)
    assert submission.status == "pending" and submission.source == "csv"
    assert len(stored_scores(submission=submission)) == 14


# --- 3. a maintainer accepts it; the open leaderboard updates ----------------------------


@pytest.mark.integration
def test_maintainer_accepts_with_a_note_and_the_open_leaderboard_updates(
    demo_site, moderated, page, page_log, log_in, celery_worker, screenshot
):
    from leaderboard.models import Benchmark
    from tests.factories import make_submission

    benchmark = Benchmark.objects.get(slug=SLUG)
    submission = make_submission(benchmark, NEW_ALGORITHM, winning_scores(), submitter=researcher())
    maintainer = researcher("maintainer")
    benchmark.maintainers.add(maintainer)
    log_in(page, maintainer)

    # The leaderboard, open in one tab.
    board = page
    board.goto(demo_site.url("benchmark-leaderboard", SLUG))
    expect(helpers.leaderboard_rows(board)).to_have_count(4)
    old_version = int(helpers.snapshot_version(board).first.inner_text())
    board.evaluate("() => { window.__sameDocument = true; }")

    # The moderation queue, in another.
    queue = board.context.new_page()
    follow_tab(queue, page_log)
    queue.goto(demo_site.url("benchmark-leaderboard", SLUG))
    queue.get_by_test_id("moderation-link").click()
    expect(queue).to_have_url(demo_site.url("contribute-moderation", SLUG))
    item = queue.locator(f"[data-testid=moderation-item][data-submission-id='{submission.pk}']")
    expect(item).to_contain_text(NEW_ALGORITHM)
    expect(item.get_by_test_id("moderation-n-scores")).to_have_text("14")
    expect(item.get_by_test_id("moderation-n-datasets")).to_have_text("14 of 14")
    note = "Checked against the authors' code: thanks!"
    item.get_by_label("Note to the submitter (optional)").fill(note)
    screenshot(queue, "queue")
    item.get_by_test_id("moderation-accept").click()
    expect(messages(queue)).to_contain_text(f"{NEW_ALGORITHM} is accepted.")
    expect(queue.get_by_test_id("moderation-empty")).to_be_visible()
    recent = queue.get_by_test_id("moderation-recent")
    expect(recent).to_contain_text(NEW_ALGORITHM)
    expect(recent).to_contain_text(note)
    screenshot(queue, "accepted")
    submission.refresh_from_db()
    assert submission.status == "accepted" and submission.decision_note == note
    assert submission.decided_by == maintainer

    # Back to the leaderboard tab: the worker's new snapshot shows up without a reload.
    board.bring_to_front()
    rows = helpers.leaderboard_rows(board)
    expect(rows).to_have_count(5, timeout=UPDATE_TIMEOUT_MS)
    expect(rows.first).to_have_attribute("data-algorithm", NEW_ALGORITHM)
    expect(helpers.snapshot_version(board).first).not_to_have_text(str(old_version))
    new_version = int(helpers.snapshot_version(board).first.inner_text())
    assert new_version > old_version
    expect(board.get_by_test_id("live-announcement")).to_contain_text(str(new_version))
    expect(board.get_by_test_id("permalink")).to_have_attribute(
        "href", demo_site.path("benchmark-version", SLUG, new_version)
    )
    assert board.evaluate("() => window.__sameDocument === true"), "the page was reloaded"
    screenshot(board, "leaderboard-updated")

    # The history names the newcomer; the old permalink still shows the old table.
    board.get_by_test_id("history-link").click()
    newest = board.get_by_test_id("history-row").first
    expect(newest).to_have_attribute("data-version", str(new_version))
    expect(newest.get_by_test_id("change-new")).to_contain_text(NEW_ALGORITHM)
    screenshot(board, "history")
    board.locator(f"[data-testid=history-row][data-version='{old_version}'] a").click()
    expect(board).to_have_url(demo_site.url("benchmark-version", SLUG, old_version))
    expect(board.get_by_test_id("version-banner")).to_contain_text(f"version {old_version}")
    expect(helpers.leaderboard_rows(board)).to_have_count(4)
    expect(helpers.leaderboard_row(board, NEW_ALGORITHM)).to_have_count(0)


# --- 4. the web-form grid keeps what was typed ---------------------------------------------

GRID_DETAILS = {
    "algorithm": "Grid-Test",
    "algorithm_version": "2.1",
    "algorithm_url": "https://example.org/grid-test",
    "note": "Ten-fold cross-validation, seed 7.",
}


def fill_grid(site, page, values: dict[str, str]) -> None:
    """Open the web form from the leaderboard; type the details and one score per dataset."""
    page.goto(site.url("benchmark-leaderboard", SLUG))
    page.get_by_test_id("submit-link").click()
    expect(page).to_have_url(site.url("contribute-submit", SLUG))
    for name, value in GRID_DETAILS.items():
        page.locator(f"#id_{name}").fill(value)
    for index, (dataset, value) in enumerate(values.items()):
        row = page.locator(f"[data-testid=grid-row][data-row='{index}']")
        expect(row.locator("th")).to_contain_text(dataset)
        page.get_by_label(f"score of {dataset}", exact=True).fill(value)


def test_web_form_grid_error_keeps_every_typed_value_next_to_the_cell(
    demo_site, page, log_in, screenshot
):
    datasets = demsar_datasets()
    scores = winning_scores()
    log_in(page, researcher())
    typed = {d: str(scores[d]) for d in datasets}
    typed[datasets[2]] = "0.9x1"
    fill_grid(demo_site, page, typed)
    page.get_by_test_id("submit-results").click()

    # Re-rendered: the problem next to its cell, and everything typed is still there.
    summary = page.get_by_test_id("error-summary")
    expect(summary).to_be_visible()
    link = summary.locator("a[href='#grid-2-0']")
    expect(link).to_have_text(f"score of {datasets[2]}: “0.9x1” is not a finite number.")
    bad = page.locator("#grid-2-0")
    expect(bad).to_have_value("0.9x1")
    expect(bad).to_have_attribute("aria-invalid", "true")
    expect(bad).to_have_attribute("aria-describedby", re.compile(r"\bgrid-2-0-error\b"))
    cell = page.locator("td.cell-invalid")
    expect(cell).to_have_count(1)
    expect(cell.locator("#grid-2-0-error")).to_have_text("“0.9x1” is not a finite number.")
    expect(page.locator("[data-testid=grid-row][data-row='2']")).to_have_class(
        re.compile(r"\brow-invalid\b")
    )
    for index, dataset in enumerate(datasets):
        expect(page.locator(f"#grid-{index}-0")).to_have_value(typed[dataset])
    for name, value in GRID_DETAILS.items():
        expect(page.locator(f"#id_{name}")).to_have_value(value)
    expect(page.locator("[aria-invalid=true]")).to_have_count(1)
    screenshot(page, "cell-error")
    assert not submissions_of("Grid-Test").exists()

    # The summary's link lands on the cell.
    link.click()
    expect(bad).to_be_focused()


def test_web_form_stores_a_correct_grid_on_a_single_metric_benchmark(
    demo_site, moderated, page, log_in
):
    scores = winning_scores()
    log_in(page, researcher())
    fill_grid(demo_site, page, {d: str(scores[d]) for d in demsar_datasets()})
    with page.expect_navigation():
        page.get_by_test_id("submit-results").click()
    summary = page.get_by_test_id("error-summary")
    assert summary.count() == 0, summary.inner_text()
    assert page.url == demo_site.url("benchmark-leaderboard", SLUG)
    expect(messages(page)).to_contain_text("Stored Grid-Test; waiting for a maintainer")
    page.goto(demo_site.url("account-submissions"))
    expect(page.get_by_test_id("submission-row")).to_have_attribute("data-status", "pending")
    (submission,) = submissions_of("Grid-Test")
    assert (
        len(stored_scores(submission=submission)) == 14 and submission.note == GRID_DETAILS["note"]
    )


# --- 5. the estimator switcher -------------------------------------------------------------


def test_switching_estimators_resorts_in_place_and_works_without_javascript(
    demo_site, page, no_js_page, screenshot
):
    board = helpers.latest_board(SLUG)
    default = board.recommended
    url = demo_site.url("benchmark-leaderboard", SLUG)

    # Without JavaScript, each estimator is a link that the server renders.
    no_js_page.goto(url)
    expect(helpers.leaderboard_table(no_js_page)).to_have_attribute("data-estimator", default)
    default_order = row_order(no_js_page)
    server = {}
    for key in board.estimator_keys:
        link = no_js_page.locator(f"#estimator-links a[data-estimator='{key}']")
        if link.count() == 0:
            continue
        link.click()
        expect(no_js_page).to_have_url(demo_site.url("benchmark-leaderboard", SLUG, estimator=key))
        expect(helpers.leaderboard_table(no_js_page)).to_have_attribute("data-estimator", key)
        expect(no_js_page.locator(f"#estimator-links a[data-estimator='{key}']")).to_have_attribute(
            "aria-current", "true"
        )
        shown = probabilities_shown(no_js_page)
        assert shown == sorted(shown, reverse=True), (key, shown)
        server[key] = {
            "order": row_order(no_js_page),
            "description": no_js_page.get_by_test_id("estimator-description").inner_text(),
        }
    reordering = [key for key, seen in server.items() if seen["order"] != default_order]
    assert reordering, f"no estimator reorders {SLUG}: nothing to switch to"
    other = reordering[0]
    assert server[other]["description"] != server[default]["description"]
    screenshot(no_js_page, f"no-js-{other}")

    # With JavaScript: radio buttons, and the table re-sorts in the same document.
    page.goto(url)
    expect(page.get_by_test_id("estimator-switcher")).to_be_visible()
    expect(page.get_by_test_id("estimator-links")).to_be_hidden()
    expect(page.get_by_test_id(f"estimator-radio-{default}")).to_be_checked()
    assert row_order(page) == default_order
    loads = document_loads(page)
    page.evaluate("() => { window.__sameDocument = true; }")

    page.get_by_test_id(f"estimator-option-{other}").click()
    table = helpers.leaderboard_table(page)
    expect(table).to_have_attribute("data-estimator", other)
    expect(page.get_by_test_id(f"estimator-radio-{other}")).to_be_checked()
    assert row_order(page) == server[other]["order"]
    expect(page.get_by_test_id("estimator-description")).to_have_text(server[other]["description"])
    expect(page).to_have_url(re.compile(rf"[?&]estimator={other}\b"))
    expect(page.get_by_test_id("export-tex")).to_have_attribute(
        "href", re.compile(rf"[?&]estimator={other}\b")
    )
    screenshot(page, f"js-{other}")

    # And back, by keyboard.
    page.get_by_test_id(f"estimator-radio-{other}").focus()
    for _ in range(len(server)):
        if page.get_by_test_id(f"estimator-radio-{default}").is_checked():
            break
        page.keyboard.press("ArrowUp")
    expect(table).to_have_attribute("data-estimator", default)
    assert row_order(page) == default_order
    expect(page.get_by_test_id("estimator-description")).to_have_text(
        server[default]["description"]
    )
    assert loads == [], f"switching loaded a document: {loads}"
    assert page.evaluate("() => window.__sameDocument === true"), "the page was reloaded"


# --- 6. exports ------------------------------------------------------------------------------


def download(page, testid: str) -> tuple[str, str]:
    with page.expect_download() as info:
        page.get_by_test_id(testid).click()
    file = info.value
    assert file.failure() is None, file.failure()
    return file.suggested_filename, Path(file.path()).read_text(encoding="utf-8")


def test_exports_download_with_their_version_and_citation(demo_site, page, screenshot):
    from leaderboard.models import Benchmark

    benchmark = Benchmark.objects.get(slug=SLUG)
    page.goto(demo_site.url("benchmark-leaderboard", SLUG))
    version = int(helpers.snapshot_version(page).first.inner_text())
    permalink = demo_site.url("benchmark-version", SLUG, version)
    podium_line = f"Podium snapshot v{version}, {permalink}"
    expect(page.get_by_test_id("citation")).to_contain_text(f"Podium snapshot v{version}")
    screenshot(page, "leaderboard")
    rows = row_order(page)

    name, text = download(page, "export-csv")
    assert name == f"{SLUG}-v{version}.csv"
    lines = text.splitlines()
    # a plain CSV (pandas reads it as is): the version and citation are in the JSON
    # export and the response headers (tests/browser/test_readers_verdict.py)
    # the page's download names its columns in words (?headers=keys: the API's keys)
    header = next(csv.reader(lines[:1]))
    assert "Algorithm" in header, header
    column = header.index("Algorithm")
    assert [next(csv.reader([line]))[column] for line in lines[1:]][: len(rows)] == rows

    name, text = download(page, "export-json")
    assert name == f"{SLUG}-v{version}.json"
    body = json.loads(text)
    assert body["version"] == version and body["permalink"] == permalink
    assert body["citation"] == f"{benchmark.citation} {podium_line}"
    assert body["rows"] and body["columns"]

    # LaTeX follows the estimator on screen.
    other = next(
        key
        for key in helpers.latest_board(SLUG).estimator_keys
        if key != helpers.leaderboard_table(page).get_attribute("data-estimator")
        and page.get_by_test_id(f"estimator-option-{key}").count()
    )
    page.get_by_test_id(f"estimator-option-{other}").click()
    expect(helpers.leaderboard_table(page)).to_have_attribute("data-estimator", other)
    top = row_order(page)[0]
    name, text = download(page, "export-tex")
    assert name == f"{SLUG}-v{version}.tex"
    assert f"Podium snapshot v{version}" in text.splitlines()[0]
    cite = next(line for line in text.splitlines() if line.startswith("% Cite:"))
    assert f"Podium snapshot v{version}" in cite and "Dem" in cite and permalink in cite, cite
    assert "\\begin{tabular}" in text and "\\toprule" in text and "\\bottomrule" in text
    first_row = text.split("\\midrule", 1)[1].strip().splitlines()[0]
    # the position (shared when P(win) ties, "=1"), the rank interval, then the name
    # (starred when it is a plausible winner)
    name_cell = first_row.split(" & ")[2].removesuffix("$^\\star$")
    assert name_cell == top.replace("_", "\\_"), (top, first_row)
    assert first_row.split(" & ")[0] in ("1", "=1"), first_row


# --- 7. charts, dataset, algorithm and methods pages ----------------------------------------


def check_charts(page) -> int:
    """Every chart figure: an SVG named by its title and description, and its numbers."""
    figures = page.locator("figure.chart")
    assert figures.count() > 0, "no chart"
    drawn = 0
    for index in range(figures.count()):
        figure = figures.nth(index)
        key = figure.get_attribute("data-testid")
        if figure.locator(".not-applicable").count():
            expect(figure.locator(".not-applicable")).to_contain_text("Not applicable")
            continue
        # an image, or a named group when it holds links (the p-value grids' cells)
        svg = figure.locator("svg[role=img], svg[role=group]:has(a)")
        expect(svg).to_have_count(1)
        names = figure.evaluate(
            """figure => {
                const svg = figure.querySelector('svg');
                return (svg.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean)
                    .map(id => (figure.querySelector('#' + CSS.escape(id)) || {}).textContent || '');
            }"""
        )
        assert len(names) == 2 and all(name.strip() for name in names), (key, names)
        box = svg.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 50, (key, box)
        data = figure.locator("details.chart-data")
        expect(data.locator("table")).to_have_count(1)
        assert data.locator("table tbody tr").count() > 0, key
        drawn += 1
    return drawn


def test_charts_and_methods_pages_render_on_desktop_and_phone(
    demo_site, page, phone_page, screenshot
):
    board = helpers.latest_board(SLUG)
    algorithm = board.algorithms[0]
    dataset = board.input.datasets[0]
    pages = {
        "charts": demo_site.url("explore-charts", SLUG),
        "dataset": demo_site.url("explore-dataset", SLUG, dataset),
        "algorithm": demo_site.url("explore-algorithm", SLUG, algorithm),
        "methods": demo_site.url("methods"),
    }

    # From the leaderboard, by its link.
    page.goto(demo_site.url("benchmark-leaderboard", SLUG))
    page.get_by_test_id("charts-link").click()
    expect(page).to_have_url(pages["charts"])
    expect(page.get_by_test_id("benchmark-charts")).to_be_visible()
    assert check_charts(page) >= 3
    expect(page.get_by_test_id("chart-win-probability")).to_be_visible()
    # The numbers behind a chart open as a table.
    data = page.get_by_test_id("chart-win-probability-data")
    data.locator("summary").click()
    expect(data.locator("table")).to_be_visible()
    for name in board.algorithms:
        expect(data.locator("table")).to_contain_text(name)
    screenshot(page, "charts-desktop")

    page.goto(pages["dataset"])
    expect(page.get_by_test_id("dataset-name")).to_have_text(dataset)
    check_charts(page)
    # (The chart's own table has the same data-testid: take the page's.)
    scores_table = page.locator("table.explore-table[data-testid=dataset-scores-table]")
    expect(scores_table.locator("tbody tr")).to_have_count(len(board.algorithms))
    screenshot(page, "dataset-desktop")

    page.goto(pages["algorithm"])
    expect(page.get_by_test_id("algorithm-name")).to_contain_text(algorithm)
    expect(page.get_by_test_id("algorithm-facts")).to_be_visible()
    assert check_charts(page) >= 1
    screenshot(page, "algorithm-desktop")

    page.goto(pages["methods"])
    expect(page.locator("h1")).to_have_text("How Podium computes its numbers")
    for section in ("win-probability", "loo", "minimax", "friedman", "nemenyi", "tukey"):
        expect(page.locator(f"section#{section} h2")).to_be_visible()
        expect(page.locator(f"nav.toc a[href='#{section}']")).to_have_count(1)
    expect(page.locator("pre.formula").first).to_be_visible()
    bounds = page.get_by_test_id("minimax-bounds")
    expect(bounds.locator("caption")).to_contain_text("Worst-case expected TV error")
    assert bounds.locator("tbody tr").count() >= 2
    screenshot(page, "methods-desktop")

    for name, url in pages.items():
        phone_page.goto(url)
        expect(phone_page.locator("h1")).to_be_visible()
        overflow = helpers.horizontal_overflow(phone_page)
        assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, (name, overflow)
        if name == "charts":
            check_charts(phone_page)
        if name in ("charts", "methods"):
            screenshot(phone_page, f"{name}-phone")
