"""The page in Korean and Indonesian (docs/DESIGN.md §4.10), in headless Chromium: every tab, before and after its
main action, holds no English sentence (a browser test walks every visible text of the page), nothing is wider than
a 390 px phone, and the switch in the header changes the language for good. The README's screenshots of both
languages come from here (ARENA_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import pytest

from tests import chromium
from tests.chromium import fits, open_page, screenshot, set_number
from tests.page_texts import EXEMPT, HANGUL, TEXTS_JS, english_left, tab_texts

chromium.require()
from playwright.sync_api import expect  # noqa: E402  (after the skip above)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LANGS = ("ko", "id")


@pytest.mark.parametrize("lang", LANGS)
def test_every_tab_speaks_the_language(server, browser, lang, tmp_path):
    url, _ = server
    page = open_page(browser, f"{url}/?lang={lang}", 1440, 900)
    assert page.evaluate("document.documentElement.lang") == lang
    left = {}
    for tab in ("race", "planner", "bench", "replay"):
        texts = tab_texts(page, tab)
        left[tab] = english_left(texts, lang)
        if lang == "ko":
            assert any(HANGUL.search(t) for t in texts), tab
    assert not any(left.values()), {k: v[:8] for k, v in left.items() if v}
    page.close()


@pytest.mark.parametrize("lang", LANGS)
def test_a_race_reads_in_the_language_on_a_laptop_and_a_phone(server, browser, lang, tmp_path):
    url, _ = server
    for size, (width, height) in {"laptop": (1440, 900), "phone": (390, 844)}.items():
        page = open_page(browser, f"{url}/?lang={lang}", width, height)
        set_number(page, "max-new-tokens", 24)
        page.click("#run-btn")
        page.wait_for_selector("#stats .badge", timeout=240_000)
        page.wait_for_timeout(800)
        texts = page.evaluate(TEXTS_JS, list(EXEMPT))
        assert not english_left(texts, lang), english_left(texts, lang)[:10]
        if lang == "ko":
            assert HANGUL.search(page.locator("#status").inner_text()) and HANGUL.search(page.locator("#why").inner_text())
        assert fits(page) == [], fits(page)
        asset = f"screenshot-race-{lang}{'-phone' if size == 'phone' else ''}.png"
        screenshot(page, tmp_path / f"race-{lang}-{size}.png", asset=asset)
        page.close()


def test_the_switch_changes_the_language_for_good(server, browser):
    url, _ = server
    page = open_page(browser, f"{url}/?lang=en", 1280, 900)
    page.locator(".lang-switch a[hreflang=id]").click()
    page.wait_for_load_state()
    expect(page.locator("#status")).not_to_contain_text("Ready", timeout=30_000)
    assert page.evaluate("document.documentElement.lang") == "id"
    page.goto(url + "/")  # no parameter: the cookie keeps the choice
    page.wait_for_selector("#status .status", timeout=60_000)
    assert page.evaluate("document.documentElement.lang") == "id"
    page.goto(url + "/?lang=en")
    page.close()
