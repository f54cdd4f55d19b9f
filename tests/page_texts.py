"""The texts a visitor sees on the page in headless Chromium, and which of them read as English: what the language
tests of every tab share (tests/ui/test_languages_browser.py, and the Planner, Benchmark and Replay tabs' browser tests).
No pytest or playwright imports: a function takes the Playwright page it reads."""

from __future__ import annotations

import re

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
