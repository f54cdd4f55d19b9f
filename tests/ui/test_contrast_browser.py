"""Every text on every tab reads at WCAG AA contrast (4.5:1; 3:1 for large text) in the light and the dark theme,
as axe-core's color-contrast rule measures it in headless Chromium, the Replay tab's player frame included.

Needs Debian's chromium, the playwright package and axe-core (``bash scripts/setup.sh --dev`` installs it, pinned, into
tests/axe); skipped without them, a failure in CI. The tab's results after a race, a plan and a benchmark are checked
by tests/ui/test_page_fits_browser.py.
"""

from __future__ import annotations

import pytest

from tests import chromium
from tests.chromium import contrast_problems, load

chromium.require()
chromium.require_axe()
from playwright.sync_api import expect  # noqa: E402  (after the skips above)

pytestmark = pytest.mark.browser
TABS = ("Race", "Planner", "Benchmark", "Replay")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_tab_reads_at_aa_contrast(server, browser, scheme):
    url, _ = server
    # gradio's theme follows ?__theme=; the replay player in its frame follows the browser's colour scheme
    page = load(browser.new_page(viewport={"width": 1440, "height": 900}, color_scheme=scheme),
                f"{url}/?__theme={scheme}", ready=False)
    assert page.evaluate("document.body.classList.contains('dark')") == (scheme == "dark")
    problems = {}
    for tab in TABS:
        page.get_by_role("tab", name=tab).first.click()
        if tab == "Replay":  # play a recorded race so the player frame is checked too
            page.locator("#replay-gallery tbody tr").first.click()
            expect(page.frame_locator("iframe.replay-frame").locator("#recording")).to_be_visible(timeout=30_000)
        page.wait_for_timeout(300)
        problems[tab] = contrast_problems(page)
    page.close()
    assert not any(problems.values()), {tab: found for tab, found in problems.items() if found}
