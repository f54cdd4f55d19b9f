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


def open_page(browser: Any, url: str, width: int = 1600, height: int = 1000, ready: bool = True) -> Any:
    """A new page of `browser`, `width` x `height` px, showing the app at `url` (see load)."""
    return load(browser.new_page(viewport={"width": width, "height": height}), url, ready)


def load(page: Any, url: str, ready: bool = True) -> Any:
    """`page` once it shows the app at `url`: the Race button is there; with `ready`, the load event has also set
    the controls (the status says Ready)."""
    from playwright.sync_api import expect

    page.goto(url)
    page.wait_for_selector("#run-btn", timeout=60_000)
    if ready:
        expect(page.locator("#status")).to_contain_text("Ready", timeout=30_000)
    return page


def set_number(page: Any, elem_id: str, value: int) -> None:
    """Type `value` into the number box of the control `elem_id` (a slider's or a Number's) and press Enter."""
    from playwright.sync_api import expect

    box = page.locator(f"#{elem_id} input[type=number]")
    box.fill(str(value))
    box.press("Enter")
    expect(box).to_have_value(str(value))


def screenshot(page: Any, path: Path, element: str | None = None, settle_ms: int = 0, asset: str | None = None) -> Path:
    """Save the full page (or the element matching the selector `element`) to `path`, after `settle_ms` ms for
    transitions to end. asset: the README's picture it is (a file name in assets/), refreshed from this one when
    ARENA_UPDATE_SCREENSHOTS is set."""
    if settle_ms:
        page.wait_for_timeout(settle_ms)
    if element is None:
        page.screenshot(path=str(path), full_page=True)
    else:
        page.locator(element).screenshot(path=str(path))
    if asset and os.environ.get(UPDATE):
        shutil.copy(path, ROOT / "assets" / asset)
    return path
