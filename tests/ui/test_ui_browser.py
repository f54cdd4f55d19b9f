"""End to end in headless Chromium against ``python app.py`` on a free localhost port (the ``server`` and
``browser`` fixtures of tests/conftest.py; skipped without Chromium and playwright, as tests/chromium.py says).
"""

from __future__ import annotations

import re
import time

import pytest

from tests import chromium
from tests.app_server import wait_until
from tests.chromium import open_page, screenshot, set_number

chromium.require()
from playwright.sync_api import Page, expect  # noqa: E402  (after the skip above)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PRESET = "offline-prompt-lookup"


def choose_preset(page: Page, preset_id: str) -> None:
    page.click("#preset input")
    page.locator(f'li[role="option"][aria-label*="\u00b7 {preset_id} \u2014"]').click()
    expect(page.locator("#method-card")).to_contain_text("Prompt lookup")


COUNTS_JS = """() => ({baseline: document.querySelectorAll('#pane-baseline .tok:not(.future)').length,
                        assisted: document.querySelectorAll('#pane-assisted .tok:not(.future)').length,
                        phase: (document.querySelector('#pane-baseline [data-phase]') || {}).dataset?.phase || '',
                        done: !!document.querySelector('#stats .badge')})"""


def watch_panes(page: Page, timeout: float = 240.0) -> list[tuple[float, dict]]:
    """(seconds, token counts and the plain pane's phase) every 0.1 s until the race's figures appear."""
    samples, start = [], time.monotonic()
    while time.monotonic() - start < timeout:
        counts = page.evaluate(COUNTS_JS)
        samples.append((time.monotonic() - start, counts))
        if counts["done"]:
            return samples
        page.wait_for_timeout(100)
    raise AssertionError(f"no result within {timeout:.0f} s")


def moved_together(samples: list[tuple[float, dict]]) -> bool:
    """Whether both panes gained tokens within one second while the plain pane replayed its kept run."""
    replay = [(t, c) for t, c in samples if c["phase"] == "replay"]
    for i, (t0, c0) in enumerate(replay):
        later = [c for t, c in replay[i + 1:] if t - t0 <= 1.0]
        if any(c["baseline"] > c0["baseline"] and c["assisted"] > c0["assisted"] for c in later):
            return True
    return False


def test_race_in_the_browser(server, browser, tmp_path):
    """The default race on a CPU is the fair race: plain first, then assisted live while the plain pane replays
    plain's recorded run; both panes gain tokens in the same second, and the speedup shown is the measured one."""
    url, _ = server
    page = open_page(browser, url)
    choose_preset(page, PRESET)
    page.locator('#examples [data-testid="dataset-cell-0-0"]').click()  # a two-column Dataset is a table
    from app.core.presets import get_preset

    expect(page.locator("#prompt textarea")).to_have_value(get_preset(PRESET).example_prompts[0])
    expect(page.locator("#race-mode input[value=fair]")).to_be_checked()
    set_number(page, "max-new-tokens", 64)
    page.click("#run-btn")
    expect(page.locator("#stop-btn")).to_be_enabled(timeout=10_000)
    # first use may convert the packaged GGUF (about 15 s); the race itself takes a few seconds
    samples = watch_panes(page)
    assert moved_together(samples), [c for _, c in samples][-40:]
    page.wait_for_selector("#stats .badge-identical, #stats .badge-diverged", timeout=10_000)
    assert page.locator("#stats .badge-identical").count() == 1, page.locator("#stats").inner_text()
    assert page.locator("#pane-assisted .tok-accepted").count() > 0
    for status in ("accepted", "resampled", "bonus", "target"):
        assert page.locator(f"#legend .tok-{status}").count() == 1
    stats = page.locator("#stats").inner_text()
    assert re.search(r"\d+\.\d\d\u00d7", stats) and "fair race" in stats
    expect(page.locator("#status")).to_contain_text("Fair race")
    assert page.locator("#pane-baseline [data-phase=done]").count() == 1
    tips = page.locator("#pane-assisted .tok").evaluate_all("els => els.map(e => e.title)")
    assert tips and all(t.startswith("#") and " id " in t for t in tips)  # every token has its tooltip
    assert any("round " in t for t in tips)
    expect(page.locator("#run-btn")).to_be_enabled()
    screenshot(page, tmp_path / "screenshot-race.png", settle_ms=300)  # the README's: tests/ui/test_page_fits_browser.py
    page.close()


def test_closing_the_tab_stops_the_race(server, browser):
    """(The server serves every browser test: only a stop after this tab's race counts.)"""
    url, log_path = server
    stopped = "race stopped (client left"
    before = log_path.read_text().count(stopped)
    page = open_page(browser, url)
    page.locator("#prompt textarea").fill("Write a long story about a lighthouse keeper and her cat.")
    set_number(page, "max-new-tokens", 400)
    page.click("#run-btn")
    page.wait_for_function(
        "() => document.querySelectorAll('#pane-baseline .tok').length >= 3", timeout=180_000)
    page.close()
    wait_until(lambda: log_path.read_text().count(stopped) > before, 30,
               lambda: "closing the tab did not stop the race:\n" + log_path.read_text()[-3000:], interval=0.3)
    assert "workers ended" in log_path.read_text().split(stopped)[-1]


def test_every_tab_fits_a_phone(server, browser):
    """At 390 px (a phone opening a share link) no tab scrolls sideways; wide content scrolls inside its card."""
    url, _ = server
    page = open_page(browser, url, 390, 844, ready=False)
    for tab in ("Race", "Planner", "Benchmark", "Replay"):
        page.get_by_role("tab", name=tab).first.click()
        page.wait_for_timeout(500)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, f"the {tab} tab is wider than a phone"
    page.close()

