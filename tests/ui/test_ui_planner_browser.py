"""The Planner tab end to end in headless Chromium against ``python app.py`` (no model is loaded).

Same setup as tests/ui/test_ui_browser.py (Debian's /usr/bin/chromium, the playwright package; skipped
without them unless CI is set). The README's planner picture, after a measurement,
is taken by tests/ui/test_page_fits_browser.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests import chromium
from tests.chromium import CHROMIUM, screenshot

chromium.require()
from playwright.sync_api import expect  # noqa: E402  (after the skip above)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_calculator_in_the_browser(page, tmp_path):
    page.get_by_role("tab", name="Planner").click()
    expect(page.locator("#plan-compute-btn")).to_be_visible()
    page.locator("#plan-alpha input").fill("0.8")
    page.locator("#plan-c input").fill("0.05")
    page.click("#plan-compute-btn")
    expect(page.locator("#plan-status")).to_contain_text("Calculated for alpha 0.8, c 0.05", timeout=20_000)
    expect(page.locator("#plan-headline")).to_contain_text("3.09")
    expect(page.locator("#plan-headline .plan-stat-gamma")).to_contain_text("8")
    assert page.locator("#plan-plot svg polyline").count() >= 1
    assert page.locator("#plan-table td.cell-measured").count() == 1
    with page.expect_download() as info:
        page.click("#plan-download-json")
    saved = tmp_path / "plan.json"
    info.value.save_as(saved)
    assert json.loads(saved.read_text(encoding="utf-8"))["best_gamma"] == 8
    screenshot(page, tmp_path / "screenshot-planner.png", settle_ms=300)  # the README's: after a measurement


def test_bad_alpha_shows_a_message_and_the_race_tab_still_works(page):
    page.get_by_role("tab", name="Planner").click()
    page.locator("#plan-alpha input").fill("1.5")
    page.click("#plan-compute-btn")
    expect(page.locator("#plan-status .status-error")).to_contain_text("between 0 and 1", timeout=20_000)
    page.get_by_role("tab", name="Race").click()
    expect(page.locator("#run-btn")).to_be_visible()
    expect(page.locator("#pane-assisted")).to_be_visible()
    assert Path(CHROMIUM).exists()


@pytest.mark.parametrize("lang", ("ko", "id"))
def test_a_plan_reads_in_the_language(server, browser, lang, tmp_path):
    """With ?lang=ko or ?lang=id the Planner tab holds no English sentence, before and after a measured plan; Korean
    shows Hangul; the page fits a laptop and a phone (screenshots in tmp_path)."""
    from tests.chromium import fits, open_page, set_number
    from tests.page_texts import EXEMPT, HANGUL, TEXTS_JS, english_left

    url, _ = server
    page = open_page(browser, f"{url}/?lang={lang}", 1440, 900)
    page.locator("#tab-planner-button, button[role=tab]").nth(1).click()
    expect(page.locator("#plan-measure-btn")).to_be_visible()
    page.wait_for_timeout(600)
    before = page.evaluate(TEXTS_JS, list(EXEMPT))
    assert not english_left(before, lang), english_left(before, lang)[:10]
    # the quickest measurement that draws every part of a measured plan: prompt lookup, one prompt, 8 tokens
    page.click("#plan-preset input")
    page.locator('li[role="option"][aria-label*="\u00b7 offline-prompt-lookup \u2014"]').click()
    # the preset's own examples arrive with its change event: wait for them before typing over them
    expect(page.locator("#plan-target input, #plan-target textarea").first).to_have_attribute(
        "placeholder", re.compile("SmolLM2"))
    page.locator("#plan-prompts textarea").fill("Fix the typo and return the line: print('helo world')")
    set_number(page, "plan-max-new-tokens", 8)
    page.click("#plan-measure-btn")
    expect(page.locator("#plan-headline .plan-mode[data-mode=measured]")).to_be_attached(timeout=240_000)
    page.wait_for_timeout(800)
    after = page.evaluate(TEXTS_JS, list(EXEMPT))
    assert not english_left(after, lang), english_left(after, lang)[:10]
    if lang == "ko":
        for part in ("#plan-status", "#plan-headline", "#plan-check", "#plan-advice"):
            assert HANGUL.search(page.locator(part).inner_text()), part
    screenshot(page, tmp_path / f"planner-{lang}-1440.png", settle_ms=300)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(600)
    assert fits(page) == [], fits(page)
    screenshot(page, tmp_path / f"planner-{lang}-390.png", settle_ms=300)
    page.close()
