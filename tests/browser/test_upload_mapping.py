"""The upload's mapping step in Chromium, on a phone (390x844) without JavaScript: a file
whose columns the reader does not know is refused with selects of its own header names,
labelled, fitting the screen and free of serious axe violations; choosing the columns
previews the file as mapped and stores it (a large one in the background, whose job page
lists what the mapping left out)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser import helpers
from tests.browser.test_accessibility import harmful_violations
from tests.leaderboard.test_upload_columns import AMLB

PHONE_390 = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _upload_amlb(page, site) -> None:
    page.goto(site.url("contribute-upload", "amlb"))
    page.get_by_label("Results file (CSV, JSON or zip)").set_input_files(
        {"name": "amlb.csv", "mimeType": "text/csv", "buffer": AMLB}
    )
    page.get_by_test_id("upload-submit").click()


def test_a_phone_without_javascript_maps_a_file_s_columns_and_stores_it(
    empty_site, new_page, log_in, screenshot
):
    from tests.factories import make_benchmark, make_user, stored_scores

    make_benchmark("amlb")
    user = make_user("mapper")
    page = new_page(**PHONE_390, java_script_enabled=False)
    log_in(page, user)
    _upload_amlb(page, empty_site)

    expect(page.get_by_test_id("column-mapping")).to_be_visible()
    expect(page.get_by_test_id("file-errors")).to_contain_text("unrecognised header")
    dataset = page.get_by_label("Dataset column")
    expect(dataset.locator("option")).to_have_text(
        ["— choose —", "task", "framework", "fold_time", "result"]
    )
    overflow = helpers.horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, overflow
    screenshot(page, "mapping")

    dataset.select_option("task")
    page.get_by_label("Algorithm column").select_option("framework")
    page.get_by_label("Score column").select_option("result")
    page.get_by_test_id("mapping-submit").click()

    expect(page.get_by_test_id("upload-columns")).to_have_text(
        "dataset: task; algorithm: framework; score: result"
    )
    expect(page.get_by_test_id("upload-notes")).to_contain_text(
        "columns left out (not mapped): fold_time"
    )
    expect(page.get_by_test_id("upload-rows")).to_have_text("3")
    overflow = helpers.horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, overflow
    screenshot(page, "preview")
    page.get_by_test_id("upload-confirm").click()
    expect(page).to_have_url(empty_site.url("benchmark-leaderboard", "amlb"))
    assert sorted((r.dataset, r.algorithm, r.value) for r in stored_scores()) == [
        ("adult", "lightgbm", 0.91),
        ("adult", "rf", 0.88),
        ("credit", "lightgbm", 0.77),
    ]


def test_a_mapped_file_stored_in_the_background_lists_what_it_left_out(
    empty_site, new_page, log_in, celery_worker, settings, screenshot
):
    """The job's page, reloading itself without JavaScript, then its outcome: the notes
    of the mapping (the columns it left out) as the preview had them."""
    from tests.factories import make_benchmark, make_user, stored_scores

    settings.PODIUM_BACKGROUND_UPLOAD_BYTES = 10  # this small file counts as large
    make_benchmark("amlb")
    page = new_page(**PHONE_390, java_script_enabled=False)
    log_in(page, make_user("background-mapper"))
    _upload_amlb(page, empty_site)
    page.get_by_label("Dataset column").select_option("task")
    page.get_by_label("Algorithm column").select_option("framework")
    page.get_by_label("Score column").select_option("result")
    page.get_by_test_id("mapping-submit").click()
    page.get_by_test_id("upload-confirm").click()

    expect(page.get_by_test_id("upload-job-done")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("upload-notes")).to_have_text(
        "columns left out (not mapped): fold_time"
    )
    overflow = helpers.horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, overflow
    screenshot(page, "job-done")
    assert len(stored_scores()) == 3


def test_the_mapping_step_has_no_serious_axe_violation_on_a_phone(empty_site, new_page, log_in):
    """axe runs as a script: this page has scripts on, at the same size."""
    from tests.factories import make_benchmark, make_user

    make_benchmark("amlb")
    page = new_page(**PHONE_390)
    log_in(page, make_user("axe-mapper"))
    _upload_amlb(page, empty_site)
    expect(page.get_by_test_id("column-mapping")).to_be_visible()
    assert not harmful_violations(page)
    page.get_by_label("Dataset column").select_option("task")
    page.get_by_label("Algorithm column").select_option("task")
    page.get_by_label("Score column").select_option("result")
    page.get_by_test_id("mapping-submit").click()
    expect(page.get_by_test_id("mapping-errors")).to_contain_text(
        "the column 'task' is given to both dataset and algorithm"
    )
    assert not harmful_violations(page)


def test_a_phone_maps_a_table_of_models_by_datasets_with_nan_as_missing(
    empty_site, new_page, log_in, screenshot
):
    """The mapping step's two checkboxes, labelled and tappable without JavaScript: one row
    per model, a NaN read as a missing result; the preview says both, and what was missing."""
    from tests.factories import make_benchmark, make_user, stored_scores
    from tests.frontend.test_contribute_mapping import BY_MODEL

    make_benchmark("by-model")
    page = new_page(**PHONE_390, java_script_enabled=False)
    log_in(page, make_user("row-mapper"))
    page.goto(empty_site.url("contribute-upload", "by-model"))
    page.get_by_label("Results file (CSV, JSON or zip)").set_input_files(
        {"name": "models.csv", "mimeType": "text/csv", "buffer": BY_MODEL}
    )
    page.get_by_test_id("upload-submit").click()
    expect(page.get_by_test_id("column-mapping")).to_be_visible()
    as_rows = page.get_by_label("One row per model")
    nan = page.get_by_label("Read a NaN score")
    expect(as_rows).not_to_be_checked()
    expect(nan).not_to_be_checked()
    overflow = helpers.horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, overflow
    screenshot(page, "mapping-options")

    as_rows.check()
    page.get_by_test_id("mapping-submit").click()
    # Without NaN as missing: the NaN refused at rf's line, the choice kept.
    expect(page.get_by_test_id("file-errors")).to_contain_text("'NaN' is not a finite number")
    expect(page.get_by_label("One row per model")).to_be_checked()
    page.get_by_label("Read a NaN score").check()
    page.get_by_test_id("mapping-submit").click()

    expect(page.get_by_test_id("upload-models-as-rows")).to_be_visible()
    expect(page.get_by_test_id("upload-nan-missing")).to_be_visible()
    expect(page.get_by_test_id("upload-notes")).to_contain_text(
        "1 NaN cells read as missing results"
    )
    expect(page.get_by_test_id("upload-rows")).to_have_text("3")
    overflow = helpers.horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"] + 1, overflow
    screenshot(page, "preview-models-as-rows")
    page.get_by_test_id("upload-confirm").click()
    expect(page).to_have_url(empty_site.url("benchmark-leaderboard", "by-model"))
    assert len(stored_scores()) == 3


def test_the_mapping_options_have_no_serious_axe_violation_on_a_phone(empty_site, new_page, log_in):
    from tests.factories import make_benchmark, make_user
    from tests.frontend.test_contribute_mapping import BY_MODEL

    make_benchmark("by-model")
    page = new_page(**PHONE_390)
    log_in(page, make_user("axe-row-mapper"))
    page.goto(empty_site.url("contribute-upload", "by-model"))
    page.get_by_label("Results file (CSV, JSON or zip)").set_input_files(
        {"name": "models.csv", "mimeType": "text/csv", "buffer": BY_MODEL}
    )
    page.get_by_test_id("upload-submit").click()
    page.get_by_label("One row per model").check()
    page.get_by_label("Dataset column").select_option("model")
    page.get_by_test_id("mapping-submit").click()
    expect(page.get_by_test_id("mapping-errors")).to_contain_text(
        "leave the columns unchosen (Dataset column chosen)"
    )
    assert not harmful_violations(page)
