"""The page's header: what the arena is, where it runs, and the language switch (pure HTML, no gradio)."""

from __future__ import annotations

from ..core.words import LANGUAGES, language, t
from .html import esc


SEPARATOR = " \u00b7 "


def language_switch() -> str:
    """Links to the page in each language (``?lang=ko``: the page keeps the choice in a cookie, app/ui/language.py),
    the current one marked."""
    links = []
    for code, name in LANGUAGES.items():
        current = ' aria-current="true"' if code == language() else ""
        links.append(f'<a href="?lang={code}" lang="{code}" hreflang="{code}"{current}>{esc(name)}</a>')
    return f'<nav class="lang-switch" aria-label="{esc(t("page.language"))}">{SEPARATOR.join(links)}</nav>'


def header_html(device: str, engine: str | None = None, name: str | None = None) -> str:
    """The title, the chip saying where generation runs (the serving engine `engine`, the operator's `name` for it,
    while the Race tab races one; else transformers on `device`), the switch and one line on what the page shows."""
    if engine:
        chip = t("page.engine_chip", engine=engine, name=name or engine)
    else:
        chip = t("page.chip", where=t("page.gpu") if device.startswith("cuda") else t("page.cpu"))
    return (f'<div class="hdr"><h1>{esc(t("page.title"))}</h1>'
            f'<span class="hdr-chip">{esc(chip)}</span>{language_switch()}</div>'
            f'<p>{esc(t("page.intro"))}</p>')
