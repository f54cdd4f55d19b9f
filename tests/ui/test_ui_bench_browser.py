"""The Benchmark tab end to end in headless Chromium against ``python app.py``: upload a one-prompt suite, run it
on the offline prompt-lookup preset (SmolLM2, 8 tokens), and see the leaderboard, the plots and the downloads.

Same setup as tests/ui/test_ui_browser.py (skipped without Chromium and playwright unless CI is set). Writes a
screenshot to the test's tmp folder (the README's is taken by tests/ui/test_page_fits_browser.py).
"""

from __future__ import annotations

import json

import pytest

from tests import chromium
from tests.chromium import screenshot, set_number

chromium.require()
from playwright.sync_api import expect  # noqa: E402  (after the skip above)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SUITE = json.dumps({"id": "sum-x", "category": "summarisation", "prompt": "Summarise this text, reusing its words: "
                    "The library on Elm Street will close for two weeks in March so that workers can replace the roof."})


def test_benchmark_tab_runs_a_suite_in_the_browser(page, tmp_path):
    page.get_by_role("tab", name="Benchmark").click()
    expect(page.locator("#bench-run-btn")).to_be_visible()
    expect(page.locator("#bench-board")).to_contain_text("No races yet")
    assert page.locator("#bench-categories input[type=checkbox]").count() == 7
    suite = tmp_path / "one.jsonl"
    suite.write_text(SUITE + "\n", encoding="utf-8")
    page.locator("#bench-suite input[type=file]").set_input_files(str(suite))
    expect(page.locator("#bench-status")).to_contain_text("one.jsonl: 1 prompts in 1 category", timeout=20_000)
    expect(page.locator("#bench-categories input[type=checkbox]")).to_have_count(1)
    set_number(page, "bench-limit", 1)
    set_number(page, "bench-max-new-tokens", 8)
    page.click("#bench-run-btn")
    expect(page.locator("#bench-status")).to_contain_text("Finished 1 race", timeout=300_000)
    expect(page.locator("#bench-board table")).to_contain_text("summarisation")
    expect(page.locator("#bench-board")).to_contain_text("offline-prompt-lookup")
    assert page.locator("#bench-heatmap svg").count() == 1 and page.locator("#bench-positions svg").count() == 1
    expect(page.locator("#bench-files")).to_contain_text("results.json")
    expect(page.locator("#bench-files")).to_contain_text("summary.md")
    screenshot(page, tmp_path / "screenshot-bench.png", settle_ms=300)  # the README's: tests/ui/test_page_fits_browser.py


def test_a_bad_setting_is_one_line_in_the_tab(page):
    page.get_by_role("tab", name="Benchmark").click()
    for box in page.locator("#bench-presets input[type=checkbox]:checked").all():
        box.uncheck()
    page.click("#bench-run-btn")
    expect(page.locator("#bench-status .status-error")).to_contain_text("Choose at least one preset", timeout=20_000)


@pytest.mark.parametrize("lang", ["ko", "id"])
def test_a_benchmark_reads_in_the_language(server, browser, lang, tmp_path):
    """In Korean and Indonesian the tab holds no English sentence before and after a tiny benchmark (docs/DESIGN.md
    §4.10), its leaderboard, plots and every race's table included, and it fits a 390 px phone."""
    from tests.chromium import fits, open_page
    from tests.page_texts import EXEMPT, TEXTS_JS, english_left, tab_texts

    url, _ = server
    page = open_page(browser, f"{url}/?lang={lang}", 390, 844)
    assert not english_left(tab_texts(page, "bench"), lang)
    suite = tmp_path / "one.jsonl"
    suite.write_text(SUITE + "\n", encoding="utf-8")
    page.locator("#bench-suite input[type=file]").set_input_files(str(suite))
    expect(page.locator("#bench-status .status-ok")).to_contain_text("one.jsonl", timeout=20_000)
    assert not english_left(page.evaluate(TEXTS_JS, list(EXEMPT)), lang)
    set_number(page, "bench-limit", 1)
    set_number(page, "bench-max-new-tokens", 8)
    page.click("#bench-run-btn")
    expect(page.locator("#bench-files")).to_be_visible(timeout=300_000)
    expect(page.locator("#bench-status .status-ok")).to_be_visible()
    page.locator("#bench-runs-box button").first.click()
    expect(page.locator("#bench-runs table")).to_be_visible()
    texts = page.evaluate(TEXTS_JS, list(EXEMPT))
    assert not english_left(texts, lang), english_left(texts, lang)[:10]
    assert fits(page) == [], fits(page)
    screenshot(page, tmp_path / f"bench-{lang}-phone.png", settle_ms=300)
    page.close()
