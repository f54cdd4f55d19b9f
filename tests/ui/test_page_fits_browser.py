"""The page fits its screen, in headless Chromium against ``python app.py``: at 1440x900 the prompt, the Race button
and both panes are in the first screen; on a 390x844 phone the preset, the prompt and the Race button (right under
the prompt) come first, in the first screen, before the panes and the results, both panes come into view when it is
pressed, and no tab scrolls sideways after its main action (a race, a plan, a benchmark, a replay), wide tables and
plots scrolling inside their card; nothing is cut off without a cue (a scrollbar or an ellipsis) at 1440 or 390 px,
no uppercased header turns α into a capital, and the Race tab fits as well in Korean and Indonesian (its buttons'
labels on one line). Each result is also checked for contrast (axe-core, light
and dark) and photographed at 1440 and 390 px; ARENA_UPDATE_SCREENSHOTS=1 copies the pictures to assets/.

The offline prompt-lookup preset with a few tokens keeps it short. Same setup as tests/ui/test_ui_browser.py and
tests/ui/test_contrast_browser.py (skipped without Chromium, playwright or axe-core unless CI is set).
"""

from __future__ import annotations

import json
import re
from typing import Callable

import pytest

from tests import chromium
from tests.chromium import capital_greek, clipped, contrast_problems, fits, open_page, screenshot, set_number

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


def cut_off(page: Page, name: str) -> list[str]:
    """What the tab `name` cuts off without a cue, or draws as a wrong capital, at the window's size now."""
    width = page.viewport_size["width"]
    return [f"{name} at {width} px: {line}" for line in settled(page, clipped) + capital_greek(page)]


def check_and_photograph(page: Page, name: str, result: str, tmp_path, contrast: bool = True,
                         assets: bool = True) -> None:
    """After a tab's main action on the phone: nothing sticks out sideways, nothing is cut off without a cue (on the
    phone and at 1440 px), every text reads at AA contrast; then pictures of the result (`result`: its selector) on
    the phone's screen and of the whole tab at 1440 px (with `assets`, the README's pictures)."""
    wide = settled(page, fits)
    cut = cut_off(page, name)
    problems = settled(page, contrast_both_ways) if contrast else []
    page.locator(result).scroll_into_view_if_needed()
    screenshot(page, tmp_path / f"{name}-phone.png", settle_ms=300, full_page=False,
               asset=f"screenshot-{name}-phone.png" if assets else None)
    page.set_viewport_size(LAPTOP)
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, tmp_path / f"{name}.png", settle_ms=400, asset=f"screenshot-{name}.png" if assets else None)
    cut += cut_off(page, name)
    page.set_viewport_size(PHONE)
    assert wide == [], f"the {name} tab is wider than a 390 px phone: {wide}"
    assert cut == [], cut
    assert problems == [], problems


def controls_first(page: Page) -> list[str]:
    """On the phone: the preset, the prompt and the Race button in the first screen, in that order, above the panes
    and the results; the buttons' labels on one line."""
    box = {s: page.locator(s).bounding_box() for s in ("#preset", "#prompt", "#run-btn", "#stop-btn", "#race-row",
                                                        "#stats")}
    out = [f"{s} below the first screen (ends at y {b['y'] + b['height']:.0f})"
           for s, b in box.items() if s in ("#preset", "#prompt", "#run-btn") and b["y"] + b["height"] > PHONE["height"]]
    if not box["#preset"]["y"] < box["#prompt"]["y"] < box["#run-btn"]["y"] < box["#race-row"]["y"] < box["#stats"]["y"]:
        out.append(f"not preset, prompt, Race, panes, results from the top: {box}")
    if box["#stop-btn"]["height"] > box["#run-btn"]["height"] + 1:
        out.append(f"the Stop button's label wraps ({box['#stop-btn']['height']:.0f} px high)")
    return out


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
    assert controls_first(page) == []
    set_number(page, "max-new-tokens", 24)
    page.locator("#run-btn").scroll_into_view_if_needed()
    assert not in_view(page, "#pane-assisted")  # the panes sit below the controls, out of the window
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


@pytest.mark.parametrize("lang", ["ko", "id"])
def test_the_race_tab_fits_in_korean_and_indonesian(server, browser, lang, tmp_path):
    page = open_page(browser, f"{server[0]}/?lang={lang}", PHONE["width"], PHONE["height"])
    try:
        assert controls_first(page) == []
        set_number(page, "max-new-tokens", 8)
        page.click("#run-btn")
        page.wait_for_selector("#stats .badge-identical, #stats .badge-diverged", timeout=300_000)
        page.evaluate("window.scrollTo(0, 0)")
        assert controls_first(page) == []
        check_and_photograph(page, f"race-{lang}", "#race-row", tmp_path, contrast=False)
    finally:
        page.close()
