"""The page in Korean and Indonesian (docs/DESIGN.md §4.10), in headless Chromium: every tab, before and after its
main action, holds no English sentence (a browser test walks every visible text of the page), nothing is wider than
a 390 px phone, and the switch in the header changes the language for good. The README's screenshots of both
languages come from here (ARENA_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import re

import pytest

from tests import chromium
from tests.chromium import fits, open_page, screenshot, set_number

chromium.require()
from playwright.sync_api import expect  # noqa: E402  (after the skip above)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LANGS = ("ko", "id")
HANGUL = re.compile("[\uac00-\ud7a3]")
#: English words that do not occur in Korean or Indonesian prose (a text with two of them is English).
ENGLISH = {"the", "and", "of", "to", "is", "are", "with", "this", "that", "for", "from", "on", "after", "when",
           "each", "its", "it", "runs", "run", "plain", "than", "which", "what", "here", "there", "be", "by", "or",
           "an", "as", "at", "one", "per", "not", "no", "only", "until", "before", "press", "pick", "edit", "draft",
           "drafts", "drafted", "tokens", "token", "round", "rounds"}
#: Words of that list that Indonesian prose uses too ("24 token", "0.5 s per token").
LOANS = {"id": {"token", "per"}, "ko": set()}
#: Where the page shows text that is the visitor's or a model's, or code: not the page's own words.
EXEMPT = ("#prompt", "#examples td:first-child", ".pane-body", "#production-command", "code", "pre", ".mono",
          "#plan-prompts", "#plan-target", "#plan-assistant", "#target", "#assistant", ".cm-content", "#plan-json",
          "textarea", "input", "#replay-gallery td:first-child", ".lang-switch", "svg text.mono")
TEXTS_JS = """exempt => { const out = []; const skip = el => exempt.some(s => el.closest(s));
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement, text = n.textContent.trim();
    if (!text || !el || skip(el)) continue;
    const style = getComputedStyle(el), box = el.getBoundingClientRect();
    if (style.display === 'none' || style.visibility === 'hidden' || box.width === 0 || box.height === 0) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (skip(el)) continue;
    for (const a of ['title', 'aria-label', 'placeholder']) { const v = el.getAttribute(a); if (v) out.push(v); }
  }
  return out; }"""


def english_left(texts: list[str], lang: str) -> list[str]:
    """The texts that read as English in a page of `lang`: two or more English-only words among their Latin words."""
    out, english = [], ENGLISH - LOANS[lang]
    for text in texts:
        # generate()'s arguments (prompt_lookup_num_tokens=10) stay as transformers spells them: not prose
        words = re.findall(r"[A-Za-z]+", re.sub(r"\w+_\w+", " ", text.lower()))
        if sum(w in english for w in words) >= 2 and len(words) >= 3:
            out.append(text[:120])
    return sorted(set(out))


def tab_texts(page, tab_id: str) -> list[str]:
    page.locator(f"#{tab_id}-button, button[role=tab]").nth(["race", "planner", "bench", "replay"].index(tab_id)).click()
    page.wait_for_timeout(600)
    return page.evaluate(TEXTS_JS, list(EXEMPT))


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
