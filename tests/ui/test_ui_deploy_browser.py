"""The "Take it to production" panel in headless Chromium (skips like test_ui_browser.py without a browser)."""

from __future__ import annotations

import pytest

from tests import chromium
from tests.chromium import open_page, screenshot

chromium.require()
from playwright.sync_api import expect  # noqa: E402  (after the skip above)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_production_panel_shows_the_engine_command_with_a_copy_button(server, browser, tmp_path):
    url, _ = server
    page = open_page(browser, url)
    page.locator("#production-box").get_by_text("Take it to production").click()
    code = page.locator("#production-command")
    expect(code).to_contain_text('"method": "ngram"', timeout=10_000)  # vLLM first, offline prompt lookup
    page.locator("#production-engine").get_by_text("SGLang").click()
    expect(code).to_contain_text("--speculative-algorithm NGRAM", timeout=10_000)
    expect(code).to_contain_text("--speculative-num-draft-tokens 11")
    page.locator("#production-engine").get_by_text("llama.cpp").click()
    expect(code).to_contain_text("--spec-type ngram-simple", timeout=10_000)
    assert code.locator("button").count() >= 1, "the copy button"
    page.locator("#production-box").scroll_into_view_if_needed()
    screenshot(page, tmp_path / "production-panel.png", element="#settings", settle_ms=300,
               asset="screenshot-production.png")
    page.close()
