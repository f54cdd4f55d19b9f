"""What a share-link probe found (docs/DESIGN.md §4.5): markup a visitor wrote never becomes live markup in a popup
(typed, uploaded, or replayed into a victim's page through a deep link), a client's own X-Forwarded-For header does
not make it another visitor, and one upload request is capped in total, not only per file."""

from __future__ import annotations

import ast
import json
import threading
import uuid

import gradio as gr
import httpx
import pytest

from app.core.words import speaking, t
from app.render.html import popup_text
from app.ui import popups
from app.ui.boundary import guard_preprocessing
from app.ui.bench.handlers import BenchState
from app.ui.config import LOOPBACK, SPACE_PROXIES, UIConfig
from app.ui.page import MAX_UPLOAD_BYTES
from app.ui.race.api import parameters
from app.ui.visitors import BUSY
from tests import chromium, page_client
from tests.app_server import held_races, launched
from tests.helpers import ROOT
from tests.fakes import named, upload

#: The probe's payload: an SVG link that gradio's popup sanitiser keeps live.
SVG = "<svg width=2000 height=2000><a href=javascript:alert(origin)><rect width=2000 height=2000 fill-opacity=0>"
IMG = "<img src=x onerror=alert(1)>"


def test_no_popup_is_built_outside_the_one_module():
    """Every gr.Error / gr.Warning / gr.Info of the app is built by app/ui/popups.py, which escapes its text."""
    offenders = []
    for path in (ROOT / "app").rglob("*.py"):
        if path.name == "popups.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None) if isinstance(node, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr in ("Error", "Warning", "Info") and \
                    isinstance(func.value, ast.Name) and func.value.id == "gr":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


def test_popup_text_is_one_short_inert_line():
    text = popup_text(f"Preset: Value: {SVG}\nis not\tin the list " + "x" * 500)
    assert "<" not in text and ">" not in text and "\n" not in text and "&lt;svg" in text
    assert len(popup_text("y" * 1000)) == 300 and popup_text("it's 'fine' & done") == "it's 'fine' &amp; done"
    assert popups.error(SVG).message == popup_text(SVG)


def test_a_refused_choice_echoes_the_value_escaped_and_short():
    with gr.Blocks() as demo:
        box = gr.Dropdown(["a", "b"], value="a", label="Preset")
        box.change(lambda v: v, box, box)
    guard_preprocessing(demo)
    with pytest.raises(gr.Error) as refused:
        box.preprocess(SVG + "z" * 400)
    message = refused.value.message
    assert message.startswith("Preset: ") and "&lt;svg" in message and "<" not in message and len(message) < 200


def test_a_suite_with_markup_ids_is_refused_without_markup(built, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(gr, "Warning", lambda text, *a, **k: shown.append(text))
    suite = "\n".join(json.dumps({"id": SVG, "prompt": f"p{i}", "category": "qa"}) for i in range(2))
    tab = built.bench
    frames = [named(tab, f) for f in tab.handlers.run(BenchState(), ["offline-prompt-lookup"],
                                                       upload(tmp_path, suite), ["qa"], "all", 5, 1, 16)]
    assert "is used twice" in frames[-1]["status"] and "<svg" not in frames[-1]["status"]
    assert shown and all("<" not in text for text in shown) and "&lt;svg" in shown[0]


@pytest.fixture(scope="module")
def public_page():
    """The page as a share link serves it (public), trusting no proxy: the connection's address is the visitor."""
    with launched(public=True, max_new_tokens_cap=32, forwarded_allow_ips="") as (url, app):
        yield url, app


def _poisoned_link(url: str, app) -> str:
    """The probe's two requests: a Race join with the markup as the preset, waited for until it is answered (refused
    at the join, or failed: the value is not a preset), then the session's deep link. Gradio makes the session when
    the join names it, before any check, so it has one."""
    race = page_client.event_named(app.demo.get_config_file(), "race_click")  # the Race button's event
    data = page_client.inputs_for(race, preset=SVG)
    assert SVG in data
    session = uuid.uuid4().hex
    with httpx.Client(timeout=60) as http:
        kind, answer = page_client.call(http, url, race["fn_index"], data, 60, session=session)
        assert kind == "refused" or (kind == "completed" and not answer["success"]), (kind, answer)
        link = http.get(f"{url}/gradio_api/deep_link", params={"session_hash": session}).json()
    assert link, "the refused event's session has no deep link"
    return link


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_refused_control_is_named_in_words_of_the_visitor_s_language(public_page, lang):
    """The probe got gradio's own English with the control's translation key for a name
    ('__i18n__{"__type__": "translation_metadata", "key": "ui.race.preset"}: Value: ... is not'). A refusal names the
    control by its label, in a sentence of the page's own, in the visitor's language."""
    url, app = public_page
    race = page_client.event_named(app.demo.get_config_file(), "race_click")
    with speaking(lang):
        expected = {"preset": t("limits.not_a_choice", label=t("ui.race.preset"), value=repr(IMG)),
                    "max-new-tokens": t("limits.out_of_range", label=t("ui.race.max_new_tokens"), low="1", high="32",
                                        value="99999")}
    for control, value in (("preset", IMG), ("max-new-tokens", 99999)):
        with httpx.Client(timeout=60, headers={"Accept-Language": lang}) as http:
            outcome, detail = page_client.send(http, url, race["fn_index"],
                                               page_client.inputs_for(race, **{control: value}), 60)
        assert outcome == "clean_errors" and detail.endswith(f"HTTP 400: {popup_text(expected[control])}"), detail
        assert "__i18n__" not in detail and "translation_metadata" not in detail


def test_a_refused_value_never_reaches_a_deep_link(public_page):
    """What the session's link replays holds no trace of the refused value."""
    url, app = public_page
    link = _poisoned_link(url, app)
    config = httpx.get(f"{url}/config", params={"deep_link": link}, timeout=30)
    assert config.status_code == 200 and config.json().get("deep_link_state") == "valid"
    assert "alert(origin)" not in config.text


@pytest.mark.browser
def test_a_deep_link_replays_no_markup_in_chromium(public_page):
    chromium.require()
    from playwright.sync_api import sync_playwright

    url, app = public_page
    link = _poisoned_link(url, app)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium.CHROMIUM, args=chromium.ARGS)
        try:
            page = chromium.load(browser.new_page(viewport={"width": 1440, "height": 900}), f"{url}/?deep_link={link}")
            page.mouse.click(700, 450)
            page.wait_for_timeout(500)
            live = page.evaluate("""() => document.querySelectorAll(
                'svg a[href^="javascript"], [data-testid="toast-body"] svg, [data-testid="toast-body"] img').length""")
            assert live == 0
            assert "<svg" not in page.locator("body").inner_text()
        finally:
            browser.close()


@pytest.mark.browser
def test_markup_typed_in_the_target_box_stays_text_in_the_popup(public_page):
    chromium.require()
    from playwright.sync_api import expect, sync_playwright

    url, _ = public_page
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium.CHROMIUM, args=chromium.ARGS)
        try:
            page = chromium.load(browser.new_page(viewport={"width": 1440, "height": 900}), url)
            page.locator("#models-box").get_by_text("Models", exact=True).first.click()
            box = page.locator("#target textarea, #target input").first
            for _ in range(3):  # on a busy machine a late page-load update may still set the preset's target
                box.fill(IMG)
                box.press("Tab")  # leave the box, so the page has taken the value before Race reads it
                page.wait_for_timeout(700)
                if box.input_value() == IMG:
                    break
            expect(box).to_have_value(IMG)
            page.locator("#run-btn").click()
            expect(page.locator('[data-testid="toast-body"]').first).to_be_visible(timeout=30_000)
            toasts = page.locator('[data-testid="toast-body"]')
            assert toasts.locator("img, form, input, svg a, [onerror]").count() == 0
            assert "<img" in toasts.first.inner_text()
        finally:
            browser.close()


@pytest.mark.slow
def test_forged_forwarded_addresses_from_one_client_share_one_slot(public_page, monkeypatch):
    """The probe's three /measure-style jobs, each with its own forged X-Forwarded-For: one runs, two are refused.
    The first race is held at its start until the other two have been answered, so a quick machine cannot finish it
    before they join."""
    url, app = public_page
    race = page_client.event_named(app.demo.get_config_file(), "race")  # the named API: one input per parameter
    names = [p.name for p in parameters()]
    data = [p["props"].get("value") for p in race["inputs"]]
    data[names.index("prompt")], data[names.index("max_new_tokens")] = "Count: one, two, three, four,", 24
    done = []
    with httpx.Client(timeout=120, headers={"X-Forwarded-For": "8.8.8.8"}) as http:
        first = threading.Thread(target=lambda: done.append(page_client.send(http, url, race["fn_index"], data, 180)))
        try:
            with held_races(monkeypatch) as wait_started:
                first.start()
                wait_started()
                for forged in ("9.9.9.9", "1.1.1.1, 127.0.0.1"):
                    with httpx.Client(timeout=60, headers={"X-Forwarded-For": forged}) as other:
                        outcome, detail = page_client.send(other, url, race["fn_index"], data, 60)
                    assert outcome == "clean_errors" and t(BUSY) in detail, detail
        finally:
            first.join(180)
    assert done and done[0][0] == "results", done


def test_who_names_the_visitor(monkeypatch):
    for name in ("FORWARDED_ALLOW_IPS", "SPACE_ID", "SYSTEM"):
        monkeypatch.delenv(name, raising=False)
    assert UIConfig().trusted_proxies == "" and UIConfig(share=True).trusted_proxies == LOOPBACK
    assert UIConfig(forwarded_allow_ips="10.1.2.3").trusted_proxies == "10.1.2.3"
    monkeypatch.setenv("SPACE_ID", "me/arena")
    assert UIConfig().trusted_proxies == SPACE_PROXIES
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "192.0.2.7")
    assert UIConfig().trusted_proxies == "192.0.2.7"


def test_one_upload_request_is_capped_in_total(public_page):
    url, _ = public_page
    part = b"x" * int(MAX_UPLOAD_BYTES * 0.6)  # each file under the per-file cap, the two together over it
    with httpx.Client(timeout=60) as http:
        two = http.post(f"{url}/gradio_api/upload", files=[("files", ("a.jsonl", part)), ("files", ("b.jsonl", part))])
        assert two.status_code == 413 and "too large" in two.text
        one = http.post(f"{url}/gradio_api/upload", files=[("files", ("a.jsonl", part))])
        assert one.status_code == 200, one.text
        streamed = http.post(f"{url}/gradio_api/upload", content=iter([b"--x\r\n", part, part]),  # no length
                             headers={"Content-Type": "multipart/form-data; boundary=x"})
        assert streamed.status_code == 413
