"""Headless Chromium for the browser tests: where the browser is, whether it can run here, opening the page,
typing a number, and the one screenshot helper.

Needs Debian's chromium (/usr/bin/chromium, or $ARENA_CHROMIUM) and the Python ``playwright`` package (no browser
download). A browser test module calls ``require()`` before it imports playwright: without them its tests skip,
unless the CI environment variable is set, where a missing browser is a failure. The ``browser`` and ``server``
fixtures are in tests/conftest.py.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from tests.helpers import ROOT

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Screenshots are copied to assets/ (the README's pictures) only when this is set: refreshed on purpose only.
UPDATE = "ARENA_UPDATE_SCREENSHOTS"
#: axe-core's browser build, installed (pinned) by ``scripts/setup.sh --dev`` (npm ci in tests/axe).
AXE = ROOT / "tests" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
#: axe's color-contrast rule (WCAG AA: 4.5:1, 3:1 for large text) on the document it runs in, one line per element.
CONTRAST_JS = """async () => (await axe.run(document, {runOnly: ['color-contrast'], iframes: false,
  resultTypes: ['violations']})).violations.flatMap(v => v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary
  .replace(/\\s+/g, ' ').slice(0, 220)))"""


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM} (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright==1.65.2)"
    return None


def require() -> None:
    """Skip the calling test module when the browser cannot run here; fail instead in CI."""
    import pytest

    if (why := missing()) is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser test cannot run in CI: {why}", pytrace=False)
        pytest.skip(why, allow_module_level=True)


def require_axe() -> None:
    """Skip the calling test module when axe-core is not installed; fail instead in CI."""
    import pytest

    if not AXE.exists():
        why = f"axe-core is not installed (bash scripts/setup.sh --dev runs npm ci in tests/axe): no {AXE.name}"
        if os.environ.get("CI"):
            pytest.fail(why, pytrace=False)
        pytest.skip(why, allow_module_level=True)


def contrast_problems(page: Any) -> list[str]:
    """Every text below WCAG AA contrast in `page` and its frames (the replay player is one), by axe-core."""
    out = []
    for frame in page.frames:
        if not frame.evaluate("typeof axe !== 'undefined'"):
            frame.add_script_tag(path=str(AXE))
        where = "page" if frame == page.main_frame else f"frame {frame.name or frame.url[:40]}"
        out += [f"{where}: {line}" for line in frame.evaluate(CONTRAST_JS)]
    return out


def fits(page: Any) -> list[str]:
    """What makes `page` wider than its window: [] when nothing does. The page itself must not scroll sideways,
    and whatever sticks out of the window must be inside a box that scrolls sideways and fits (wide tables scroll
    in their card); a box that only clips would hide it."""
    return page.evaluate(FITS_JS)


FITS_JS = """() => {
  const w = window.innerWidth, out = [];
  if (document.scrollingElement.scrollWidth > w) out.push(`page ${document.scrollingElement.scrollWidth} px wide`);
  const scrolls = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= w + 1 || el.closest('svg') !== el && el.closest('svg')) continue;
    let box = el.parentElement;
    while (box && !(scrolls(box) && box.getBoundingClientRect().right <= w + 1)) box = box.parentElement;
    const name = `${el.tagName.toLowerCase()}#${el.id}.${String(el.className).slice(0, 40)}`;
    if (!box) out.push(`${name} ends at ${Math.round(r.right)}`);
  }
  return out.slice(0, 10);
}"""


def clipped(page: Any) -> list[str]:
    """What `page` cuts off without a cue: [] when nothing does. A box whose content is wider than it must scroll
    sideways (overflow-x auto or scroll: a scrollbar shows) or end its text in an ellipsis; one that only hides the
    rest would lose it unseen. Text fields (they scroll their own text) and screen-reader-only boxes are left out."""
    return page.evaluate(CLIPPED_JS)


CLIPPED_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') || ['INPUT', 'TEXTAREA'].includes(el.tagName) || el.clientWidth <= 1) continue;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.scrollWidth <= el.clientWidth + 1) continue;
    if (['auto', 'scroll', 'visible'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis') continue;
    out.push(`${el.tagName.toLowerCase()}#${el.id}.${String(el.className).slice(0, 40)}: ${el.scrollWidth} px in ` +
             `${el.clientWidth} (${cs.overflowX})`);
  }
  return out.slice(0, 10);
}"""


def capital_greek(page: Any) -> list[str]:
    """Texts that show a Greek letter as a capital it is not: an alpha or gamma in uppercased text (CSS would draw
    α as Α), or a capital Alpha typed as such."""
    return page.evaluate(CAPITAL_GREEK_JS)


CAPITAL_GREEK_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('');
    if (!own.trim()) continue;
    const upper = getComputedStyle(el).textTransform === 'uppercase';
    if ((upper && /[\u03b1-\u03c9]/.test(own)) || /\u0391/.test(own))
      out.push(`${el.tagName.toLowerCase()}: ${own.slice(0, 60)}`);
  }
  return out.slice(0, 10);
}"""


def open_page(browser: Any, url: str, width: int = 1600, height: int = 1000, ready: bool = True) -> Any:
    """A new page of `browser`, `width` x `height` px, showing the app at `url` (see load)."""
    return load(browser.new_page(viewport={"width": width, "height": height}), url, ready)


def load(page: Any, url: str, ready: bool = True) -> Any:
    """`page` once it shows the app at `url`: the Race button is there; with `ready`, the load event has also set
    the controls (the status no longer says it is connecting, in any language: the page's first status is the one
    it was built with)."""
    from playwright.sync_api import expect

    page.goto(url)
    page.wait_for_selector("#run-btn", timeout=60_000)
    if ready:
        expect(page.locator("#status .status")).to_be_visible(timeout=30_000)
        expect(page.locator("#status")).not_to_contain_text("Connecting", timeout=30_000)
    return page


def set_number(page: Any, elem_id: str, value: int) -> None:
    """Type `value` into the number box of the control `elem_id` (a slider's or a Number's) and press Enter."""
    from playwright.sync_api import expect

    box = page.locator(f"#{elem_id} input[type=number]")
    box.fill(str(value))
    box.press("Enter")
    expect(box).to_have_value(str(value))


def screenshot(page: Any, path: Path, element: str | None = None, settle_ms: int = 0, asset: str | None = None,
               full_page: bool = True) -> Path:
    """Save the full page (the window only without `full_page`; or the element matching the selector `element`) to
    `path`, after `settle_ms` ms for transitions to end. asset: the README's picture it is (a file name in assets/),
    refreshed from this one when ARENA_UPDATE_SCREENSHOTS is set."""
    if settle_ms:
        page.wait_for_timeout(settle_ms)
    if element is None:
        page.screenshot(path=str(path), full_page=full_page)
    else:
        page.locator(element).screenshot(path=str(path))
    if asset and os.environ.get(UPDATE):
        shutil.copy(path, ROOT / "assets" / asset)
    return path
