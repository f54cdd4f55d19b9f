"""The page fits its screen, in headless Chromium against ``python app.py``: at 1440x900 the prompt, the Race button
and both panes are in the first screen; on a 390x844 phone the Race button is right under the prompt, both panes
come into view when it is pressed, and no tab scrolls sideways after its main action (a race, a plan, a benchmark, a
replay), wide tables and plots scrolling inside their card. Each result is also checked for contrast (axe-core, light
and dark) and photographed at 1440 and 390 px; ARENA_UPDATE_SCREENSHOTS=1 copies the pictures to assets/.

The offline prompt-lookup preset with a few tokens keeps it short. Same setup as tests/test_ui_browser.py and
tests/test_contrast_browser.py (skipped without Chromium, playwright or axe-core unless CI is set).
"""

from __future__ import annotations

import json
import re
from typing import Callable

import pytest

from tests import chromium
from tests.chromium import contrast_problems, fits, open_page, screenshot, set_number

chromium.require()
chromium.require_axe()
from playwright.sync_api import Page, expect  # noqa: E402  (after the skips above)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PRESET = "offline-prompt-lookup"
PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1440, "height": 900}
SUITE = json.dumps({"id": "fix-1", "category": "code-editing", "prompt": "Fix the typo and return the line: "
                    "print('helo world')"})
SMOLLM = re.compile("SmolLM2")
#: Turns gradio's dark theme on or off (what ?__theme=dark does at load).
DARK_JS = "dark => document.body.classList.toggle('dark', dark)"


def in_view(page: Page, selector: str) -> bool:
    """The element is wholly inside the window."""
    box, size = page.locator(selector).bounding_box(), page.viewport_size
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5 \
        and box["y"] + box["height"] <= size["height"] + 0.5


def svg_width(page: Page, block: str) -> float:
    """The drawn width (px) of the plot in `block`: a plot keeps its own size on a phone and scrolls in its card."""
    return page.locator(f"{block} svg").first.bounding_box()["width"]


def contrast_both_ways(page: Page) -> list[str]:
    """axe's contrast findings on what the page shows now, in the light and then the dark theme."""
    found = []
    for dark in (False, True):
        page.emulate_media(color_scheme="dark" if dark else "light")  # the replay player's frame follows this
        page.evaluate(DARK_JS, dark)
        page.wait_for_timeout(200)
        found += [f"{'dark' if dark else 'light'} {line}" for line in contrast_problems(page)]
    page.evaluate(DARK_JS, False)
    page.emulate_media(color_scheme="light")
    return found


def settled(page: Page, check: Callable[[Page], list[str]]) -> list[str]:
    """What `check` finds once the page has settled: found twice, 1.5 s apart (gradio fades its results in)."""
    found = check(page)
    if found:
        page.wait_for_timeout(1500)
        found = check(page)
    return found


def check_and_photograph(page: Page, name: str, result: str, tmp_path) -> None:
    """After a tab's main action on the phone: nothing sticks out sideways, every text reads at AA contrast; then
    pictures of the result (`result`: its selector) on the phone's screen and of the whole tab at 1440 px."""
    wide = settled(page, fits)
    problems = settled(page, contrast_both_ways)
    page.locator(result).scroll_into_view_if_needed()
    screenshot(page, tmp_path / f"{name}-phone.png", settle_ms=300, full_page=False, asset=f"screenshot-{name}-phone.png")
    page.set_viewport_size(LAPTOP)
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, tmp_path / f"{name}.png", settle_ms=400, asset=f"screenshot-{name}.png")
    page.set_viewport_size(PHONE)
    assert wide == [], f"the {name} tab is wider than a 390 px phone: {wide}"
    assert problems == [], problems


@pytest.fixture(scope="module")
def phone(server, browser):
    """One phone-sized page of the app for the module's walk through the tabs (in file order)."""
    page = open_page(browser, server[0], PHONE["width"], PHONE["height"])
    yield page
    page.close()


def test_the_first_screen_holds_the_prompt_the_race_button_and_both_panes(server, browser):
    page = open_page(browser, server[0], LAPTOP["width"], LAPTOP["height"], ready=False)
    missing = [s for s in ("#prompt", "#run-btn", "#pane-baseline", "#pane-assisted") if not in_view(page, s)]
    page.close()
    assert not missing, f"below the first screen at 1440x900: {missing}"


def test_a_race_on_a_phone_keeps_both_panes_in_view(phone, tmp_path):
    page = phone
    prompt, run = page.locator("#prompt").bounding_box(), page.locator("#run-btn").bounding_box()
    assert 0 <= run["y"] - (prompt["y"] + prompt["height"]) <= 24, "the Race button is not right under the prompt"
    set_number(page, "max-new-tokens", 24)
    page.locator("#run-btn").scroll_into_view_if_needed()
    assert not in_view(page, "#pane-assisted")  # the panes sit above the prompt, out of the window
    page.click("#run-btn")
    expect(page.locator("#stop-btn")).to_be_enabled(timeout=10_000)
    assert in_view(page, "#pane-baseline") and in_view(page, "#pane-assisted"), "pressing Race left the panes out of view"
    page.wait_for_selector("#stats .badge-identical, #stats .badge-diverged", timeout=300_000)
    check_and_photograph(page, "race", "#race-row", tmp_path)


def test_a_plan_on_a_phone(phone, tmp_path):
    page = phone
    page.get_by_role("tab", name="Planner").first.click()
    page.click("#plan-preset input")
    page.locator(f'li[role="option"][aria-label*="\u00b7 {PRESET} \u2014"]').click()
    expect(page.locator("#plan-target input, #plan-target textarea").first).to_have_attribute("placeholder", SMOLLM)
    page.locator("#plan-prompts textarea").fill("Fix the typo and return the line: print('helo world')")
    set_number(page, "plan-max-new-tokens", 8)
    page.click("#plan-measure-btn")
    expect(page.locator("#plan-status")).to_contain_text(f"Measured {PRESET}", timeout=600_000)
    assert svg_width(page, "#plan-plot") >= 480, "the plot shrank to the phone: its labels would be unreadable"
    check_and_photograph(page, "planner", "#plan-headline", tmp_path)


def test_a_benchmark_on_a_phone(phone, tmp_path):
    page = phone
    page.get_by_role("tab", name="Benchmark").first.click()
    for box in page.locator("#bench-presets input[type=checkbox]:checked").all():
        box.uncheck()
    page.locator("#bench-presets label", has_text=PRESET).locator("input").check()
    suite = tmp_path / "one.jsonl"
    suite.write_text(SUITE + "\n", encoding="utf-8")
    page.locator("#bench-suite input[type=file]").set_input_files(str(suite))
    expect(page.locator("#bench-status")).to_contain_text("1 prompts in 1 category", timeout=20_000)
    set_number(page, "bench-limit", 1)
    set_number(page, "bench-max-new-tokens", 8)
    page.click("#bench-run-btn")
    expect(page.locator("#bench-status")).to_contain_text("Finished 1 race", timeout=300_000)
    assert min(svg_width(page, f"#bench-{plot}") for plot in ("heatmap", "positions", "scatter")) >= 600, \
        "a plot shrank to the phone: its labels would be unreadable"
    check_and_photograph(page, "bench", "#bench-board", tmp_path)


def test_a_replay_on_a_phone(phone, tmp_path):
    page = phone
    page.get_by_role("tab", name="Replay").first.click()
    page.locator("#replay-gallery tbody tr").first.click()
    player = page.frame_locator("iframe.replay-frame")
    player.locator("#end").click(timeout=30_000)
    expect(player.locator("body")).to_have_attribute("data-state", "ended")
    check_and_photograph(page, "replay-tab", "#replay-player", tmp_path)
