"""Every stylesheet, in the ``.css`` files of app/render/css (checked as CSS by the tests), put together for the two
places that show a race: the app's page (gradio's ``css`` and ``head`` at launch) and the self-contained replay page.

- ``race.css``: the one stylesheet of a race (panes, Okabe-Ito token colours each with its own underline, badge,
  cards, round chart), shared by both; ``race-dark.css`` its dark tones.
- ``page.css`` / ``page-dark.css``: the app's page around the race; ``page-frame.css``: gradio's own frame.
- ``replay-page.css``: the replay page around the race, with the gradio colour variables the race's sheet reads.
"""

from __future__ import annotations

import re
from pathlib import Path

_FOLDER = Path(__file__).with_name("css")
_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def sheet(name: str) -> str:
    """The text of app/render/css/`name`."""
    return (_FOLDER / name).read_text(encoding="utf-8")


def dark_css(rules: str, scope: str) -> str:
    """`rules` (one rule per line; comments allowed) for dark mode: scope ".dark" prefixes every selector with that
    class (gradio's dark theme); scope "media" wraps them in ``@media (prefers-color-scheme: dark)`` (a standalone
    page)."""
    rules = _COMMENT.sub("", rules)
    if scope == "media":
        return f"@media (prefers-color-scheme: dark) {{{rules}}}\n"
    out = []  # one rule per selector: gradio scopes only the first selector of a list under its ".dark"
    for line in filter(str.strip, rules.strip().splitlines()):
        selectors, body = line.split("{", 1)
        out.extend(f"{scope} {s.strip()} {{{body}" for s in selectors.split(","))
    return "\n".join(out) + "\n"


#: The race's own sheet and its dark tones (one rule per line).
RACE_CSS, DARK_RULES = sheet("race.css"), sheet("race-dark.css")
#: The app page's ``css`` (the race, both dark sheets, the page) and its ``head`` style (gradio's frame).
PAGE_CSS = RACE_CSS + dark_css(DARK_RULES, ".dark") + dark_css(sheet("page-dark.css"), ".dark") + sheet("page.css")
PAGE_FRAME_CSS = sheet("page-frame.css")
#: The replay page's inline CSS: the race, its dark tones for a browser in dark mode, the page around it.
REPLAY_CSS = RACE_CSS + dark_css(DARK_RULES, "media") + sheet("replay-page.css")
