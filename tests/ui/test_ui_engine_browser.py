"""An engine race as a visitor sees it (docs/DESIGN.md §4.7), in headless Chromium: the page launched with the real
llama-server pair offered as the engine "local" (tests/conftest.py ``llama_pair``), the engine picked in the preset
list, Race pressed; both panes fill through the one player, the engine's own figures stand beside the arena's clock,
the why panel costs a round from the engine's own timings, the page never shows the engine's address, and nothing is
wider than a 390 px phone. The README's engine picture comes from here (ARENA_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import re

import pytest

from tests import chromium
from tests.chromium import fits, open_page, screenshot, set_number

chromium.require()
from playwright.sync_api import expect  # noqa: E402  (after the skip above)

from app.engine.target import EngineTarget  # noqa: E402
from tests.app_server import launched  # noqa: E402
from tests.engine_follow import CODE_EDIT  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def engine_url(llama_pair):
    assisted, plain = llama_pair
    with launched(endpoints=(EngineTarget("local", assisted.url, plain.url),)) as (url, _):
        yield url, (assisted.url, plain.url)


@pytest.mark.parametrize("width,height,asset", [(1440, 900, "screenshot-engine-race.png"),
                                                (390, 844, "screenshot-engine-race-phone.png")])
def test_an_engine_race_on_the_page(engine_url, browser, tmp_path, width, height, asset):
    url, addresses = engine_url
    page = open_page(browser, url, width, height)
    page.click("#preset input")
    page.locator('li[role="option"]', has_text="Serving engine").first.click()
    expect(page.locator("#method-card")).to_contain_text("serving engine", timeout=30_000)
    expect(page.locator("#mode")).to_be_hidden()
    expect(page.locator("#tune-btn")).to_be_hidden()
    page.locator("#prompt textarea").fill(CODE_EDIT)
    set_number(page, "max-new-tokens", 48)
    page.click("#run-btn")
    page.wait_for_selector("#stats .stat-engine", timeout=240_000)
    expect(page.locator("#run-btn")).to_be_enabled(timeout=60_000)
    page.wait_for_timeout(600)
    for side in ("baseline", "assisted"):
        assert page.locator(f"#race-row .pane-{side} .tok").count() > 0, side
    assert page.locator("#race-row .pane-assisted .tok.tok-accepted").count() > 0
    expect(page.locator("#why")).to_contain_text("plain steps a round costs")  # a round's cost, the engine's timings
    expect(page.locator("#why")).to_contain_text(re.compile(r"Drafting (pays|loses): a round drafted"))
    text = page.locator("body").inner_text()
    assert not any(address in text or address.split("//")[1] in text for address in addresses)
    assert fits(page) == [], fits(page)
    screenshot(page, tmp_path / asset, asset=asset)
    page.close()
