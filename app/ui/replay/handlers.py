"""Event functions of the Replay tab: play a gallery race or an uploaded trace; a file that is not a valid trace is
one clear line and an empty player."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import gradio as gr

from ...core.errors import ArenaError
from ...core.words import t
from ..language import redrawn_where_unchanged
from ...replay.gallery import Gallery
from ...render.replay_page import replay_html
from ...replay.tracefile import Trace, load_trace
from ..uploads import whole_index
from ...render.status import status_html
from ..boundary import unexpected_error_text
from .files import write_replay_page
from ...render.replay_tab import (gallery_headers, gallery_samples, intro_html, placeholder_html, player_html,
                                  recording_status, title_words)

log = logging.getLogger("app.ui")


class ReplayHandlers:
    """The Replay tab's event functions, bound to its components (`ui`) and the gallery read at build time."""

    def __init__(self, ui: Any, gallery: Gallery | None):
        self.ui, self.gallery = ui, gallery

    def _show(self, trace: Trace, name: str) -> dict:
        u = self.ui
        page = replay_html(trace)
        try:
            download = gr.update(value=write_replay_page(trace, name=f"replay-{trace.result.preset}", page=page),
                                 interactive=True)
        except ArenaError as exc:
            log.warning("replay page not written: %s", exc)
            download = gr.update(value=None, interactive=False)
        return {u.player: player_html(page), u.status: recording_status(trace, name), u.download: download}

    def _failed(self, message: str) -> dict:
        u = self.ui
        return {u.player: placeholder_html(), u.status: status_html(message, "error"),
                u.download: gr.update(value=None, interactive=False)}

    def _guarded(self, load, name: str) -> dict:
        try:
            return self._show(load(), name)
        except ArenaError as exc:
            return self._failed(str(exc))
        except Exception as exc:  # a bug: say so in one line, keep the traceback in the log
            log.exception("replay failed")
            return self._failed(unexpected_error_text(exc))

    def gallery_picked(self, index: int | None) -> dict:
        """A gallery row was clicked: play that recorded race."""
        index = whole_index(index)
        if self.gallery is None or index is None or not 0 <= index < len(self.gallery.entries):
            return self._failed(t("replay.not_in_gallery"))
        entry = self.gallery.entries[index]
        return self._guarded(lambda: self.gallery.load(index), title_words(entry))

    def uploaded(self, path: str | None) -> dict:
        """A trace file was uploaded: check it and play it (or say in one line what is wrong with it)."""
        if not path:
            return {self.ui.status: status_html(t("replay.load_prompt"))}
        return self._guarded(lambda: load_trace(path), Path(path).name)

    def page_loaded(self, problem: str = "", status: str | None = None, player: str | None = None) -> dict:
        """The tab's HTML and the gallery's rows in the visitor's language (docs/DESIGN.md §4.10); the status and the
        player only where they still show what the page was built with (a shared link restores a replay first)."""
        u = self.ui
        return {u.intro: intro_html(self.gallery, problem),
                u.gallery: gr.Dataset(samples=gallery_samples(self.gallery), headers=gallery_headers()),
                **redrawn_where_unchanged({u.status: (status, lambda: status_html(t("replay.nothing_playing"))),
                                           u.player: (player, placeholder_html)})}

    def loaded_outputs(self) -> list:
        u = self.ui
        return [u.intro, u.status, u.player, u.gallery]
