"""The replay page and the Replay tab in headless Chromium: the page plays to the race's final text with no
server, its controls work, it fits a 390 px phone and a laptop with no horizontal scrolling, and the tab
plays a gallery race with one click, labelled as a recording.

Needs Debian's chromium and the Python playwright package, like tests/ui/test_ui_browser.py (skipped without
them, a failure in CI). Screenshots go to a temp folder; ARENA_UPDATE_SCREENSHOTS=1 refreshes the README's.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stdout

import pytest

from app.cli import main
from app.replay.gallery import load_gallery
from app.render.replay_page import replay_html
from app.replay.tracefile import load_trace
from tests import chromium
from tests.app_server import running_app, wait_until
from tests.chromium import load, open_page, screenshot

chromium.require()
from playwright.sync_api import expect  # noqa: E402  (after the skip above)

pytestmark = pytest.mark.browser
WIDTHS = {"laptop": (1280, 900), "phone": (390, 844)}
#: Text of the visible token spans of each pane, in order.
PANE_TEXT = """side => Array.from(document.querySelectorAll(`.pane-${side} .pane-body .tok`))
  .filter(el => getComputedStyle(el).display !== 'none').map(el => el.dataset.text ?? el.textContent).join('')"""


@pytest.fixture(scope="module")
def page_file(tiny, tmp_path_factory, one_torch_thread):
    """(trace, path of its replay page) for a tiny-model race of 24 tokens."""
    folder = tmp_path_factory.mktemp("replay")
    with redirect_stdout(io.StringIO()):
        assert main(["race", "--preset", "drafter", "--target", tiny["llama_target"], "--assistant",
                     tiny["llama_drafter"], "--prompt", "The cat likes", "--max-new-tokens", "24",
                     "--save-trace", str(folder / "t.json")]) == 0
    assert main(["replay", str(folder / "t.json"), "--html", str(folder / "t.html")]) == 0
    return load_trace(folder / "t.json"), folder / "t.html"


@pytest.mark.parametrize("size", WIDTHS, ids=list(WIDTHS))
def test_page_plays_to_the_final_text_and_fits_the_screen(browser, page_file, size, tmp_path):
    trace, path = page_file
    width, height = WIDTHS[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri() + "?speed=8")
    page.wait_for_selector("body[data-state=ended]", timeout=30_000)
    assert page.evaluate(PANE_TEXT, "assisted") == "".join(t.text for t in trace.result.assisted.tokens)
    assert page.evaluate(PANE_TEXT, "baseline") == "".join(trace.baseline_texts)
    expect(page.locator("#stats .final")).to_be_visible()
    expect(page.locator(".pane-assisted .rate-value")).to_have_text(f"{trace.result.assisted.tokens_per_second:.1f}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert requests == [path.as_uri() + "?speed=8"]  # nothing but the file itself
    screenshot(page, tmp_path / f"replay-{size}.png")
    page.close()


def test_controls_pause_restart_speed_and_end(browser, page_file):
    trace, path = page_file
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri() + "?autoplay=0")
    assert page.get_attribute("body", "data-state") == "paused"
    assert page.evaluate(PANE_TEXT, "assisted") == ""  # rewound: nothing shown yet
    expect(page.locator("#stats .final")).to_be_hidden()
    page.click(".speeds button[data-speed='0.25']")
    expect(page.locator(".speeds button[data-speed='0.25']")).to_have_attribute("aria-pressed", "true")
    page.click("#play")
    assert page.get_attribute("body", "data-state") == "playing"
    page.click("#end")
    assert page.get_attribute("body", "data-state") == "ended"
    assert page.evaluate(PANE_TEXT, "baseline") == "".join(trace.baseline_texts)
    page.click("#restart")
    assert page.get_attribute("body", "data-state") == "playing"
    page.click(".speeds button[data-speed='8']")
    page.wait_for_selector("body[data-state=ended]", timeout=30_000)
    assert page.locator(".pane del.rej:visible").count() == 0
    page.check("#show-rej")
    assert page.locator(".pane del.rej:visible").count() == page.locator(".pane del.rej").count()
    page.close()


#: Visible token counts of both panes with the player's clock set to `t` seconds of recorded time (paused).
AT_CLOCK = """t => { const p = document.getElementById('player').arenaPlayer; p.pause(); p.ended = false; p.clock = t;
  p.render(); const n = s => Array.from(document.querySelectorAll(`#pane-${s} .tok`))
  .filter(el => getComputedStyle(el).display !== 'none').length; return [n('baseline'), n('assisted')]; }"""


def _count_by(times: list[float], clock: float) -> int:
    return sum(1 for t in times if t <= clock + 1e-9)


def test_a_replay_reproduces_the_races_token_times(browser, page_file, tmp_path):
    """Each token shows at its recorded time: both sides from zero for a race of both at once; a fair race as it was
    raced: plain alone first, then assisted from zero while plain's run replays from zero beside it."""
    fair = load_gallery().load(0)
    assert fair.result.mode == "sequential" and fair.result.baseline_kept_at is None
    path = tmp_path / "fair.html"
    path.write_text(replay_html(fair), encoding="utf-8")
    for trace, file in ((page_file[0], page_file[1]), (fair, path)):
        b, a = trace.result.baseline, trace.result.assisted
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(file.as_uri() + "?autoplay=0")
        offset = b.seconds if trace.result.mode == "sequential" else 0.0
        for share in (0.0, 0.3, 0.6, 1.0):
            if trace.result.mode == "sequential":  # plain alone, then both from zero
                t = min(share, 0.99) * b.seconds  # (at b.seconds the assisted side starts)
                assert page.evaluate(AT_CLOCK, t) == [_count_by(b.token_times, t), 0], (share, "plain first")
            t = share * max(a.seconds, b.seconds)
            assert page.evaluate(AT_CLOCK, offset + t) == [_count_by(b.token_times, t), _count_by(a.token_times, t)]
        page.close()


def test_replay_tab_plays_a_gallery_race_with_one_click(server, browser, tmp_path):
    url, _ = server
    gallery = load_gallery()
    assert gallery.entries, "no recorded races in assets/races"
    for size, (width, height) in WIDTHS.items():
        page = open_page(browser, url, width, height, ready=False)
        page.get_by_role("tab", name="Replay").click()
        page.locator("#replay-gallery tbody tr").first.click()
        expect(page.locator("#replay-status")).to_contain_text("Recording, not a live run", timeout=30_000)
        expect(page.locator("#replay-status")).to_contain_text(gallery.entries[0].device_name)
        frame = page.frame_locator("iframe.replay-frame")
        expect(frame.locator("#recording")).to_contain_text("Not a live run")
        frame.locator("#end").click()
        expect(frame.locator("body")).to_have_attribute("data-state", "ended")
        inside = page.frame(url="about:srcdoc")
        assert inside.evaluate(PANE_TEXT, "assisted") == "".join(t.text for t in gallery.load(0).result.assisted.tokens)
        assert inside.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.wait_for_timeout(500)  # the frame fits its page once the page has reported its height
        box, inner = page.locator("iframe.replay-frame").bounding_box(), frame.locator("main").bounding_box()
        assert box["height"] >= inner["height"] and box["x"] + box["width"] <= width + 1
        tab = page.locator("#tab-replay")
        assert tab.evaluate("el => el.getBoundingClientRect().right") <= width + 1
        screenshot(page, tmp_path / f"replay-tab-{size}.png")
        page.close()


def test_readme_screenshot_of_a_gallery_race(browser, tmp_path):
    """The README's picture: the first gallery race, replayed to its end at laptop width, showing the recorded
    race's whole assisted text and its final figures, labelled as a recording, with no horizontal scrolling."""
    gallery = load_gallery()
    trace = gallery.load(0)
    path = tmp_path / "replay.html"
    path.write_text(replay_html(trace), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri() + "?speed=8")
    page.click("#end")
    expect(page.locator("body")).to_have_attribute("data-state", "ended")
    assert page.evaluate(PANE_TEXT, "assisted") == "".join(t.text for t in trace.result.assisted.tokens)
    expect(page.locator("#stats .final")).to_be_visible()
    expect(page.locator("#recording")).to_contain_text("Not a live run")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    screenshot(page, tmp_path / "screenshot-replay.png", asset="screenshot-replay.png")
    page.close()


@pytest.fixture(scope="module")
def space_server(tmp_path_factory):
    """``python app.py`` with the variables a Hugging Face Space sets, so the page thinks it is public."""
    def space(port: int) -> dict:
        return dict(os.environ, PYTHONUNBUFFERED="1", GRADIO_ANALYTICS_ENABLED="False", SYSTEM="spaces",
                    SPACE_ID="someone/arena")

    with running_app(tmp_path_factory.mktemp("space") / "server.log", space, startup=120) as url:
        yield url


def test_share_link_reopens_the_replay_on_a_public_page(space_server, browser, server):
    """Where the page is public the share button copies a deep link that brings the replay back; elsewhere
    there is no share button."""
    local, _ = server
    page = open_page(browser, local, 1280, 720, ready=False)
    assert page.locator(".share-link").count() == 0
    page.close()
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = load(context.new_page(), space_server, ready=False)
    assert page.locator(".race-share").count() == 1
    page.get_by_role("tab", name="Replay").click()
    # a click that lands before the page's load event has wired the gallery is lost (seen on a loaded machine): click
    # again until the replay starts, at most three times
    title = load_gallery().entries[1].title
    for attempt in range(3):
        page.locator("#replay-gallery tbody tr").nth(1).click()
        try:
            expect(page.locator("#replay-status")).to_contain_text(title, timeout=15_000)
            break
        except AssertionError:
            if attempt == 2:
                raise
    page.locator(".replay-share").click()

    def copied() -> str:
        return page.evaluate("navigator.clipboard.readText()")

    # the button fetches a link id, then copies the address
    wait_until(lambda: "deep_link=" in copied(), 15, lambda: f"no deep link copied: {copied()!r}", interval=0.25)
    link = copied()
    shared = load(context.new_page(), link, ready=False)
    shared.get_by_role("tab", name="Replay").click()
    expect(shared.locator("#replay-status")).to_contain_text(load_gallery().entries[1].title)
    expect(shared.frame_locator("iframe.replay-frame").locator("#recording")).to_contain_text(  # the frame's page
        "Not a live run", timeout=30_000)  # loads after the status: on a busy machine that took over the 5 s default
    context.close()


@pytest.mark.parametrize("lang", ["ko", "id"])
def test_replay_tab_reads_in_the_language(server, browser, lang, tmp_path):
    """In Korean and Indonesian the tab and the replay it plays hold no English sentence before and after a gallery
    race is picked (docs/DESIGN.md §4.10); the replay page is written in the page's language."""
    from tests.page_texts import EXEMPT, TEXTS_JS, english_left, tab_texts

    url, _ = server
    page = open_page(browser, f"{url}/?lang={lang}", 390, 844)
    assert not english_left(tab_texts(page, "replay"), lang)
    page.locator("#replay-gallery tbody tr").first.click()
    expect(page.locator("#replay-status .status-info")).to_be_visible(timeout=30_000)
    frame = page.frame_locator("iframe.replay-frame")
    frame.locator("#end").click()
    expect(frame.locator("body")).to_have_attribute("data-state", "ended")
    texts = page.evaluate(TEXTS_JS, list(EXEMPT))
    assert not english_left(texts, lang), english_left(texts, lang)[:10]
    inside = page.frame(url="about:srcdoc")
    assert inside.evaluate("document.documentElement.lang") == lang
    inside.locator("details.setup summary").click()
    inner = inside.evaluate(TEXTS_JS, [*EXEMPT, ".verdict"])  # the verdict: app/race/trust.py's line, translate()d
    assert not english_left(inner, lang), english_left(inner, lang)[:10]
    page.wait_for_timeout(500)
    assert page.locator("#tab-replay").evaluate("el => el.getBoundingClientRect().right") <= 391
    screenshot(page, tmp_path / f"replay-{lang}-phone.png")
    page.close()
