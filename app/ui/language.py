"""The visitor's language on the page (docs/DESIGN.md §4.10): English, Korean or Indonesian, from the switch on the
page (a cookie) or else the browser's own language.

gradio translates the components' words in the browser from ``navigator.language`` (its ``gr.I18n`` tables); the
server writes the rest (status lines, figures, the why panel, errors) in the language of the request. So that both
agree, :class:`LanguageBoot` serves the page with a first script that makes the browser's language the chosen one
(``?lang=ko`` in the address sets the choice and keeps it in a cookie), and every event runs in the language of the
cookie it arrives with, else of its ``Accept-Language`` header.
"""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import parse_qs

from ..core.words import DEFAULT, LANGUAGES, speaking, ui_words

#: The cookie that keeps the visitor's choice (a year), and the address parameter that sets it.
COOKIE, PARAM = "arena-lang", "lang"
COOKIE_SECONDS = 365 * 24 * 3600
_TAG = re.compile(r"^[A-Za-z]{2,3}")


def label(key: str) -> Any:
    """A component's text that gradio translates in the browser (a ``ui.`` key of the tables): its labels, help
    texts, placeholders, choices, button values and tab names."""
    from gradio.i18n import I18nData

    return I18nData(key)


def gradio_i18n(*extra: Callable[[], dict[str, str]]) -> Any:
    """The ``gr.I18n`` of every language's ``ui.`` words, for ``launch(i18n=...)``; `extra`: functions that give more
    ``ui.`` words in the current language (the preset list's entries, the operator's engines), asked in each."""
    import gradio as gr

    tables = {}
    for lang in LANGUAGES:
        with speaking(lang):
            tables[lang] = {**ui_words(lang), **{k: v for words in extra for k, v in words().items()}}
    return gr.I18n(**tables)


def redrawn_where_unchanged(shown: dict[Any, tuple[Any, Callable[[], Any]]]) -> dict[Any, Any]:
    """Page-load redraws in the visitor's language: for each component -> (the value it shows now, the function that
    draws it), the drawing where the component still shows what the page was built with (drawn in English) or
    nothing; a shared link may have restored a result there first, which stays."""
    out = {}
    for component, (now, draw) in shown.items():
        with speaking(DEFAULT):
            built = draw()
        if now in (None, "", built):
            out[component] = draw()
    return out


def best_language(accept: str | None) -> str:
    """The page's language closest to an ``Accept-Language`` header ("ko-KR,ko;q=0.9,en;q=0.8" -> "ko")."""
    ranked = []
    for i, part in enumerate((accept or "").split(",")):
        tag, _, q = part.strip().partition(";q=")
        m = _TAG.match(tag)
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            weight = 0.0
        if m:
            ranked.append((-weight, i, m.group(0).lower()))
    return next((code for _, _, code in sorted(ranked) if code in LANGUAGES), DEFAULT)


def chosen(cookies: dict[str, str] | None, accept: str | None) -> str:
    """The language of a request: its cookie when it names one of the page's languages, else its header's best."""
    value = (cookies or {}).get(COOKIE)
    return value if value in LANGUAGES else best_language(accept)


def request_language(request: Any) -> str:
    """The language of a gradio (or starlette) request; English without one (a script calling the function)."""
    if request is None:
        return DEFAULT
    cookies = getattr(request, "cookies", None) or {}
    headers = getattr(request, "headers", None) or {}
    return chosen(dict(cookies), headers.get("accept-language"))


def scope_headers(scope: dict) -> tuple[dict[str, str], dict[str, str]]:
    """(headers by lower-case name, cookies) of an ASGI request's scope."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    cookies = dict(part.strip().split("=", 1) for part in headers.get("cookie", "").split(";") if "=" in part)
    return headers, cookies


def scope_language(scope: dict) -> str:
    """The language of an ASGI request (for a line an ASGI middleware answers with): as :func:`request_language`."""
    headers, cookies = scope_headers(scope)
    return chosen(cookies, headers.get("accept-language"))


def boot_script(lang: str) -> str:
    """The page's first script: the browser reports `lang` as its language (gradio reads it to pick its tables)."""
    return ("<script>(function(){var l=" + repr(lang).replace("'", '"') + ";try{Object.defineProperty(navigator,"
            "'language',{get:function(){return l;}});Object.defineProperty(navigator,'languages',{get:function(){"
            "return [l];}});}catch(e){}document.documentElement.lang=l;})();</script>")


class LanguageBoot:
    """ASGI middleware for the page itself (``GET /``, HTML): puts :func:`boot_script` first in its ``<head>``, and
    keeps a ``?lang=`` choice in the cookie. Everything else passes untouched."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "GET" or scope.get("path") not in ("/", ""):
            await self.app(scope, receive, send)
            return
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        asked = (query.get(PARAM) or [""])[0]
        headers, cookies = scope_headers(scope)
        lang = asked if asked in LANGUAGES else chosen(cookies, headers.get("accept-language"))
        await self.app(scope, receive, _Injector(send, lang, asked in LANGUAGES).send)


class _Injector:
    """Holds the page's response until its body is whole, then sends it with the boot script in its head."""

    def __init__(self, send: Any, lang: str, remember: bool):
        self._send, self.lang, self.remember = send, lang, remember
        self.start: dict | None = None
        self.body = b""

    async def send(self, message: dict) -> None:
        if message["type"] == "http.response.start":
            self.start = message
            return
        if message["type"] != "http.response.body" or self.start is None:
            await self._send(message)
            return
        self.body += message.get("body", b"")
        if message.get("more_body"):
            return
        start, body = self.start, self.body
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        kind = dict((k.lower(), v) for k, v in headers).get(b"content-type", b"")
        if b"text/html" in kind:
            body = body.replace(b"<head>", b"<head>" + boot_script(self.lang).encode(), 1)
            if self.remember:
                headers.append((b"set-cookie", f"{COOKIE}={self.lang}; Path=/; Max-Age={COOKIE_SECONDS}; "
                                               f"SameSite=Lax".encode()))
        headers.append((b"content-length", str(len(body)).encode()))
        await self._send({**start, "headers": headers})
        await self._send({"type": "http.response.body", "body": body})
