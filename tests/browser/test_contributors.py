"""Newcomers and maintainers on the demo data of `make dev`, in a real Chromium.

A newcomer pastes a spreadsheet column into the grid of the open demo and sees the
leaderboard change; the grid keeps focus and values after the fold count is typed; a
typo'd dataset gets "did you mean"; the demo maintainer account logs in, reads the
evidence on a moderated demo's cards and accepts two submissions at once.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import helpers

OPEN_SLUG = "demsar-2006"
MODERATED_SLUG = "simulated-new-vs-old"
UPDATE_TIMEOUT_MS = 30_000


def researcher(name: str = "newcomer"):
    from tests.factories import make_user

    return make_user(name)


def paste(page, selector: str, text: str) -> None:
    """A paste event as a spreadsheet makes it: text/plain, tabs and newlines."""
    page.locator(selector).focus()
    page.locator(selector).evaluate(
        """(input, text) => {
            const data = new DataTransfer();
            data.setData('text/plain', text);
            input.dispatchEvent(new ClipboardEvent('paste', {
                clipboardData: data, bubbles: true, cancelable: true}));
        }""",
        text,
    )


def demsar_winning_column() -> list[str]:
    """Per Demšar dataset (grid order), a score just above the best: the newcomer wins."""
    from leaderboard.models import Dataset
    from tests.factories import stored_scores

    names = list(
        Dataset.objects.filter(benchmark__slug=OPEN_SLUG)
        .order_by("name")
        .values_list("name", flat=True)
    )
    best: dict[str, float] = {}
    for row in stored_scores(submission__benchmark__slug=OPEN_SLUG):
        best[row.dataset] = max(best.get(row.dataset, 0.0), row.value)
    return [f"{min(1.0, best[name] + 0.005):.3f}" for name in names]


@pytest.mark.integration
def test_newcomer_pastes_a_column_into_the_open_demo_and_the_leaderboard_changes(
    demo_site, page, log_in, celery_worker, screenshot
):
    log_in(page, researcher())
    page.goto(demo_site.url("benchmark-leaderboard", OPEN_SLUG))
    expect(helpers.leaderboard_rows(page)).to_have_count(4)
    page.get_by_test_id("submit-link").click()
    expect(page.get_by_test_id("grid-metrics")).to_contain_text("AUC")
    page.locator("#id_algorithm").fill("Newcomer-Forest")

    column = demsar_winning_column()
    paste(page, "#grid-0-0", "\n".join(column) + "\n")  # a spreadsheet column ends in \n
    cells = page.get_by_test_id("grid-cell")
    expect(cells).to_have_count(14)
    assert cells.evaluate_all("cells => cells.map(c => c.value)") == column
    expect(page.get_by_test_id("grid-paste-status")).to_have_text("Pasted 14 values.")
    screenshot(page, "pasted")

    page.get_by_test_id("submit-results").click()
    expect(page).to_have_url(demo_site.url("benchmark-leaderboard", OPEN_SLUG))
    expect(page.get_by_test_id("messages")).to_contain_text("Stored and accepted Newcomer-Forest")
    rows = helpers.leaderboard_rows(page)
    expect(rows).to_have_count(5, timeout=UPDATE_TIMEOUT_MS)
    expect(rows.first).to_have_attribute("data-algorithm", "Newcomer-Forest")
    screenshot(page, "leaderboard-changed")


def test_typing_the_fold_count_then_clicking_a_cell_keeps_focus_and_values(demo_site, page, log_in):
    log_in(page, researcher())
    page.goto(demo_site.url("contribute-submit", OPEN_SLUG))
    page.locator("#grid-0-0").fill("0.91")
    folds = page.locator("#id_folds")
    folds.fill("")
    folds.type("3")
    # The first click into the grid after typing the count: focus and value stay.
    page.locator("#grid-1-2").click()
    page.keyboard.type("0.77")
    expect(page.locator("#grid-1-2")).to_be_focused()
    expect(page.locator("#grid-1-2")).to_have_value("0.77")
    expect(page.locator("#grid-0-0")).to_have_value("0.91")
    expect(page.locator("thead th")).to_have_count(1 + 3)
    # Fewer folds and back: the values of the hidden column come back.
    folds.fill("1")
    folds.fill("3")
    expect(page.locator("#grid-1-2")).to_have_value("0.77")

    # A block (two rows, three folds) pasted from a spreadsheet.
    paste(page, "#grid-2-0", "0.1\t0.2\t0.3\r\n0.4\t0.5\t0.6\r\n")
    values = [page.locator(f"#grid-{r}-{f}").input_value() for r in (2, 3) for f in range(3)]
    assert values == ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6"]


def test_a_typo_in_an_uploaded_file_gets_did_you_mean(demo_site, page, log_in, screenshot):
    log_in(page, researcher())
    page.goto(demo_site.url("contribute-upload", OPEN_SLUG))
    expect(page.get_by_test_id("csv-template-link")).to_be_visible()
    content = (
        b"dataset,algorithm,score\niris,Typo-Test,0.9\nIris-,Typo-Test,0.8\nwines,Typo-Test,0.7\n"
    )
    page.get_by_label("Results file (CSV, JSON or zip)").set_input_files(
        {"name": "typo.csv", "mimeType": "text/csv", "buffer": content}
    )
    page.get_by_test_id("upload-submit").click()
    problems = page.get_by_test_id("upload-problems")
    expect(problems).to_contain_text(
        "dataset 'Iris-' is not in this benchmark; did you mean 'iris'?"
    )
    expect(problems).to_contain_text(
        "dataset 'wines' is not in this benchmark; did you mean 'wine'?"
    )
    expect(page.get_by_test_id("upload-confirm")).to_have_count(0)
    screenshot(page, "did-you-mean")


def test_the_demo_maintainer_reads_the_evidence_and_bulk_accepts(demo_site, page, screenshot):
    from leaderboard.demo import demo_maintainer_ensure
    from leaderboard.models import Benchmark, Submission
    from tests.factories import make_submission

    demo_maintainer_ensure(username="demo-maintainer", password="podium-demo")
    benchmark = Benchmark.objects.get(slug=MODERATED_SLUG)
    tasks = list(benchmark.datasets.order_by("name").values_list("name", flat=True))
    perfect = make_submission(benchmark, "Too-Good", {t: [1.0] * 25 for t in tasks}, folds=True)
    steady = make_submission(
        benchmark, "Steady", {t: [0.8 + 0.001 * f for f in range(25)] for t in tasks}, folds=True
    )

    # The account of `make dev`, through the login form.
    page.goto(demo_site.url("account_login"))
    page.get_by_label("Username").fill("demo-maintainer")
    page.get_by_label("Password").fill("podium-demo")
    page.get_by_test_id("login-submit").click()
    page.goto(demo_site.url("contribute-moderation", MODERATED_SLUG))

    cards = page.get_by_test_id("moderation-item")
    expect(cards).to_have_count(2)
    too_good = page.locator(f"[data-testid=moderation-item][data-submission-id='{perfect.pk}']")
    expect(too_good.get_by_test_id("moderation-metric")).to_have_text("accuracy")
    expect(too_good.get_by_test_id("moderation-flags")).to_contain_text(
        "perfect score on every dataset"
    )
    expect(too_good.get_by_test_id("moderation-rank")).to_contain_text("Would rank 1 of 5")
    expect(too_good.get_by_test_id("moderation-scores").locator("tbody tr")).to_have_count(10)
    screenshot(page, "evidence")

    for card in (perfect, steady):
        page.locator(
            f"[data-testid=moderation-item][data-submission-id='{card.pk}'] "
            "[data-testid=moderation-tick]"
        ).check()
    page.get_by_test_id("moderation-bulk-note").fill("Accepted in one go.")
    page.get_by_test_id("moderation-bulk-accept").click()
    expect(page.get_by_test_id("messages")).to_contain_text("Accepted 2")
    expect(page.get_by_test_id("moderation-empty")).to_be_visible()
    screenshot(page, "bulk-accepted")
    assert set(
        Submission.objects.filter(pk__in=[perfect.pk, steady.pk]).values_list(
            "status", "decision_note", "decided_by__username"
        )
    ) == {("accepted", "Accepted in one go.", "demo-maintainer")}
