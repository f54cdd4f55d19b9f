"""The Replay tab and the race downloads without a browser: the tab is built after the others, a gallery race
and an uploaded trace play (labelled as recordings), bad files are one line, a finished race offers its trace
and replay page, and the share link exists exactly where the page has a public address."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import gradio as gr
import pytest

from app.core.knobs import KNOBS
from app.replay.gallery import GALLERY_DIR, entry_for, load_gallery, outcome_of, write_index
from app.replay.tracefile import load_trace, parse_trace, save_trace
from app.ui.config import UIConfig
from app.ui.race.controls import CONCURRENT, CONTROL_NAMES, preset_state
from app.ui.race.session import Session
from app.ui.replay.files import share_button
from app.ui.replay.handlers import ReplayHandlers
from tests.helpers import by_elem_id


def tiny_controls(tiny, max_new_tokens: int = 12) -> list:
    state = preset_state("drafter", None, 512)
    values = {"preset": "drafter", "prompt": "The cat likes", "target": tiny["llama_target"],
              "assistant": tiny["llama_drafter"], "chat_template": False, "max_new_tokens": max_new_tokens,
              "decoding": "greedy", "temperature": 1.0, "top_p": 1.0, "seed": None}
    values.update({k: state["knobs"][k]["value"] for k in KNOBS})
    return [values[n] for n in CONTROL_NAMES]


@pytest.fixture(scope="module")
def local_app(local_built):
    """A page that accepts local folders (the tiny models)."""
    return local_built


@pytest.fixture(scope="module")
def raced(local_app, tiny, one_torch_thread):
    """(session, frames) of one race of both at once of the tiny pair through the Race tab's streaming handler."""
    session = Session()
    frames = list(local_app.race.handlers.race_click(session, CONCURRENT, *tiny_controls(tiny)))
    return session, frames


def _value(update):
    return update.get("value") if isinstance(update, dict) else update


def test_replay_tab_comes_after_the_others(built):
    tabs = [b for b in built.demo.blocks.values() if isinstance(b, gr.Tab)]
    assert [t.id for t in tabs] == ["race", "planner", "bench", "replay"]
    for elem_id in ("replay-gallery", "replay-upload", "replay-player", "replay-status", "replay-download"):
        by_elem_id(built, elem_id)
    assert built.replay.ui.gallery.headers == ["Recorded race", "Result", "Recorded"]


def test_a_finished_race_offers_its_trace_and_replay_page(local_app, raced):
    session, frames = raced
    downloads = local_app.race.ui.downloads
    first, last = frames[0], frames[-1]
    assert _value(first[downloads.trace]) is None and first[downloads.trace]["interactive"] is False
    trace_path, page_path = _value(last[downloads.trace]), _value(last[downloads.page])
    assert last[downloads.trace]["interactive"] and last[downloads.page]["interactive"]
    trace = load_trace(trace_path)
    latest = session.latest
    assert [t.id for t in trace.result.assisted.tokens] == [t.id for t in latest.assisted.tokens]
    assert trace.result.assisted.token_times == [round(t, 4) for t in latest.assisted.token_times]
    assert trace.prompt == "The cat likes" and trace.settings["preset"] == "drafter"
    page = open(page_path, encoding="utf-8").read()
    # the page shows the trace's speedup, recomputed from its rounded rates: within a rounding of the race's own
    assert abs(trace.result.speedup - latest.speedup) < 0.01
    assert page.startswith("<!DOCTYPE html>") and "Recording" in page and f"{trace.result.speedup:.2f}\u00d7" in page


def test_a_race_that_starts_clears_the_last_races_files(local_app):
    u = local_app.race.ui
    out = local_app.race.handlers.buttons(True)
    assert out[u.downloads.trace]["interactive"] is False and out[u.downloads.page]["value"] is None
    assert u.downloads.trace not in local_app.race.handlers.buttons(False)


@pytest.fixture()
def gallery_dir(tmp_path, raced, local_app):
    """A gallery folder holding the tiny race's trace as its one race (recorded as a measurement: a race the check
    refused is no gallery entry, and tiny models on a busy test machine rarely pass it)."""
    trace_path = _value(raced[1][-1][local_app.race.ui.downloads.trace])
    data = json.loads(open(trace_path, encoding="utf-8").read())
    data["result"]["verdict"].update(kind="win", reason="", measured=True)
    save_trace(data, tmp_path / "tiny-win.json")
    write_index(tmp_path, [entry_for(parse_trace(data), "tiny-win.json", "win", "Tiny pair")], True, "provisional")
    return tmp_path


def handlers_for(folder) -> tuple[ReplayHandlers, SimpleNamespace]:
    ui = SimpleNamespace(player=object(), status=object(), download=object())
    return ReplayHandlers(ui, load_gallery(folder)), ui


def test_one_click_plays_a_gallery_race_labelled_as_a_recording(gallery_dir):
    h, ui = handlers_for(gallery_dir)
    out = h.gallery_picked(0)
    assert out[ui.player].startswith('<iframe class="replay-frame"') and 'sandbox="allow-scripts"' in out[ui.player]
    assert "srcdoc=\"&lt;!DOCTYPE html&gt;" in out[ui.player] and "<script>" not in out[ui.player]
    status = out[ui.status]
    assert "Recording, not a live run" in status and "Tiny pair" in status and "UTC" in status
    page = open(_value(out[ui.download]), encoding="utf-8").read()
    assert "Not a live run" in page
    bad = h.gallery_picked(5)
    assert "status-error" in bad[ui.status] and "replay-empty" in bad[ui.player]


def test_an_uploaded_trace_plays_and_a_bad_one_is_one_line(gallery_dir, tmp_path):
    h, ui = handlers_for(gallery_dir)
    assert "tiny-win.json" in h.uploaded(str(gallery_dir / "tiny-win.json"))[ui.status]
    bad = tmp_path / "notes.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    out = h.uploaded(str(bad))
    assert "status-error" in out[ui.status] and "is not an assisted-decoding-arena trace" in out[ui.status]
    assert "replay-empty" in out[ui.player] and _value(out[ui.download]) is None
    assert "Load a trace" in h.uploaded(None)[ui.status]


def test_share_link_only_where_the_page_is_public(built, monkeypatch):
    assert not [b for b in built.demo.blocks.values() if isinstance(b, gr.DeepLinkButton)]
    monkeypatch.delenv("SPACE_ID", raising=False)
    with gr.Blocks():
        assert share_button(UIConfig(), "x") is None
        assert isinstance(share_button(UIConfig(share=True), "x"), gr.DeepLinkButton)
        monkeypatch.setenv("SPACE_ID", "someone/arena")
        assert isinstance(share_button(UIConfig(), "x"), gr.DeepLinkButton)


def test_a_shared_page_has_the_link_on_both_tabs(monkeypatch):
    from app.ui.page import build_app

    monkeypatch.delenv("SPACE_ID", raising=False)
    app = build_app(UIConfig(share=True))
    links = [b for b in app.demo.blocks.values() if isinstance(b, gr.DeepLinkButton)]
    assert len(links) == 2 and app.race.ui.downloads.share in links and app.replay.ui.share in links


def test_a_gallery_outcome_is_the_recorded_race_s_one_verdict_and_no_measurement_is_no_entry(tmp_path):
    from app.race.verdict import Verdict

    assert [outcome_of(Verdict(kind, "", 0.02, 1.0)) for kind in ("win", "loss", "level", "unmeasured")] == \
        ["faster", "slower", "level with plain", "not a measurement"]
    entry = dict(file="a.json", preset="p", intended="win", title="A", outcome="not a measurement", speedup=7.61,
                 mode="sequential", recorded_at="2026-01-01T00:00:00", device_name="cpu")
    old = {**entry, "file": "b.json", "outcome": "about the same", "speedup": 0.97}  # an older index's words
    (tmp_path / "index.json").write_text(json.dumps({"provisional": True, "note": "", "races": [entry, old]}))
    assert [(e.file, e.outcome) for e in load_gallery(tmp_path).entries] == [("b.json", "level with plain")]


def test_the_recorded_gallery_is_complete_and_loads():
    gallery = load_gallery(GALLERY_DIR)
    presets = {"offline-prompt-lookup", "offline-uad", "offline-early-exit"}
    assert {(e.preset, e.intended) for e in gallery.entries} == {(p, r) for p in presets for r in ("win", "lose")}
    assert gallery.note
    for i, entry in enumerate(gallery.entries):
        trace = gallery.load(i)
        assert trace.result.preset == entry.preset and trace.result.mode == "sequential"
        assert not trace.result.errors
        assert entry.outcome == outcome_of(trace.result.verdict) and trace.result.verdict.measured
        assert time.strptime(entry.recorded_at[:19], "%Y-%m-%dT%H:%M:%S")
