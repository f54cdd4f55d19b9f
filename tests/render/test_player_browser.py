"""The one player (app/render/player.js) in headless Chromium, fed the race's data as the server sends it
(app/render/live.py) and as a replay page embeds it: tokens drawn as text with their statuses and tooltips, rejected
drafts inline on request, the fair race's replay of plain's run on the assisted side's clock, and a recording's
tokens at their recorded times."""

from __future__ import annotations

import json

import pytest

from app.race.protocol import RaceSnapshot, SideSnapshot
from app.race.protocol import Round, Token
from app.race.result import AssistedResult, RaceResult, SideResult
from app.render.live import LiveFrames
from app.render.player import JS
from app.render.style import RACE_CSS
from tests import chromium

chromium.require()

pytestmark = pytest.mark.browser
EVIL = '<img src=x onerror="window.pwned=1">'
TOKENS = [Token(1, "The", "resampled", 0.5, 0.4), Token(2, " cat", "accepted", 0.9), Token(3, EVIL, "accepted"),
          Token(4, " on", "bonus"), Token(5, "</s>", "target", special=True)]
ROUNDS = [Round(3, 0, 'a "dog" <b>', rejected_p_target=0.12, rejected_p_draft=0.5), Round(2, 2, ""), Round(0, 0, "")]
VISIBLE = """name => Array.from(document.querySelectorAll(`#pane-${name} .tok`)).filter(el =>
  getComputedStyle(el).display !== 'none').map(el => el.dataset.text ?? el.textContent)"""


@pytest.fixture(scope="module")
def player_page(browser, tmp_path_factory):
    """An empty page with the race's stylesheet and a mounted player (``window.player``)."""
    path = tmp_path_factory.mktemp("player") / "player.html"
    path.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>{RACE_CSS}</style></head><body>'
                    f'<div id="root"></div><script>{JS}\nwindow.player = ArenaPlayer.mount('
                    f'document.getElementById("root"), {{}});</script></body></html>', encoding="utf-8")
    tab = browser.new_page(viewport={"width": 1280, "height": 800})
    tab.goto(path.as_uri())
    yield tab
    tab.close()


def send(page, data: dict) -> None:
    page.evaluate("data => window.player.update(data)", json.loads(json.dumps(data)))


def side(tokens=(), rounds=(), times=(), done=False, started=True, elapsed=0.0) -> SideSnapshot:
    return SideSnapshot(tuple(tokens), tuple(rounds), tuple(times), times[0] if times else None,
                        times[-1] if done and times else 0.0, None, done, False, started, elapsed)


def test_tokens_are_text_with_their_status_and_tooltip(player_page):
    page = player_page
    frames = LiveFrames(("plain generate()", "prompt lookup"), sequential=False, max_tokens=8)
    times = [0.1, 0.2, 0.2, 0.2, 0.3]
    send(page, frames.frame(RaceSnapshot(False, {"baseline": side(), "assisted": side(TOKENS[:2], ROUNDS[:1],
                                                                                      times[:2], elapsed=0.2)})))
    assert page.evaluate(VISIBLE, "assisted") == ["The", " cat"]
    send(page, frames.frame(RaceSnapshot(False, {"baseline": side(), "assisted": side(TOKENS, ROUNDS, times, True,
                                                                                      elapsed=0.3)})))
    assert page.evaluate(VISIBLE, "assisted") == ["The", " cat", EVIL, " on", "</s>"]
    assert page.evaluate("window.pwned") is None and page.locator("#pane-assisted img").count() == 0
    classes = page.evaluate("Array.from(document.querySelectorAll('#pane-assisted .tok')).map(e => e.className)")
    assert [c.split()[1] for c in classes] == ["tok-resampled", "tok-accepted", "tok-accepted", "tok-bonus", "tok-target"]
    assert "tok-special" in classes[-1] and page.locator("#pane-assisted .tok-special").inner_text() == "\u23ce end"
    title = page.locator("#pane-assisted .tok-resampled").get_attribute("title")
    assert "#0 resampled" in title and "target p=0.50, drafter p=0.40" in title and "round 1: drafted 3, accepted 0" in title
    assert 'rejected draft: \u201ca "dog" <b>\u201d (target p=0.12, drafter p=0.50)' in title
    assert page.locator("#pane-assisted .pane-meta").inner_text().startswith("5 tokens")
    assert page.locator("#pane-assisted [data-phase]").get_attribute("data-phase") == "done"


def test_rejected_drafts_show_inline_on_request(player_page):
    page = player_page
    assert page.locator("#pane-assisted del.rej").count() == 1 and not page.locator("#pane-assisted del.rej").is_visible()
    page.evaluate("document.body.classList.add('show-rej')")
    assert page.locator("#pane-assisted del.rej").inner_text() == 'a "dog" <b>'
    assert page.evaluate("""() => { const d = document.querySelector('#pane-assisted del.rej');
      return d.nextElementSibling.classList.contains('tok-resampled'); }""")  # right before the target's fix
    page.evaluate("document.body.classList.remove('show-rej')")


def test_a_live_fair_race_replays_plains_run_on_the_assisted_clock(player_page):
    page = player_page
    """Plain finished first (5 tokens over 0.8 s); once the assisted side starts, the plain pane starts over and its
    tokens come back at their recorded times while the assisted side streams; the last frame shows both whole."""
    frames = LiveFrames(("plain", "assisted"), sequential=True, max_tokens=8)
    plain = [Token(i, f" p{i}", "target") for i in range(5)]
    plain_times = [0.1, 0.25, 0.4, 0.6, 0.8]
    baseline = side(plain, (), plain_times, done=True, elapsed=0.8)
    send(page, frames.frame(RaceSnapshot(True, {"baseline": baseline, "assisted": side(started=False, elapsed=None)})))
    assert len(page.evaluate(VISIBLE, "baseline")) == 5  # plain's own run, live
    send(page, frames.frame(RaceSnapshot(True, {"baseline": baseline, "assisted": side(elapsed=0.0)})))
    counts = []
    for _ in range(12):
        counts.append(len(page.evaluate(VISIBLE, "baseline")))
        page.wait_for_timeout(100)
    assert counts[0] <= 1 and counts[-1] == 5 and counts == sorted(counts) and len(set(counts)) >= 4, counts
    assert page.locator("#pane-baseline [data-phase]").get_attribute("data-phase") == "done"
    assert "replayed in step" in page.locator("#pane-baseline .pane-subtitle").inner_text()


def test_a_new_race_starts_over(player_page):
    page = player_page
    frames = LiveFrames(("plain", "assisted"), sequential=False, max_tokens=4)
    send(page, frames.loading("Loading\u2026"))
    assert page.evaluate(VISIBLE, "assisted") == [] and "Loading" in page.locator("#pane-assisted").inner_text()
    result = RaceResult("p", "prompt-lookup", "t", None, "concurrent", False, "cpu",
                        SideResult("ab", [1, 2], 0.2, 0.1, [0.1, 0.2], ["a", "b"]),
                        AssistedResult("ax", [1, 3], 0.2, 0.1, [0.1, 0.2], ["a", "x"],
                                       tokens=[Token(1, "a", "accepted"), Token(3, "x", "resampled")],
                                       rounds=[Round(2, 1, "b")]))
    send(page, frames.finished(result))
    assert page.evaluate(VISIBLE, "baseline") == ["a", "b"]
    assert page.locator("#pane-baseline .tok-diverge").inner_text() == "b"  # the first divergence, in both panes
    assert page.locator("#pane-assisted .tok-diverge").inner_text() == "x"
