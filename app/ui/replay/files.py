"""Files the page offers after a race (its trace and replay page) and in the Replay tab, written to the app's own
export folder (app/ui/exports.py), and the share link."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import gradio as gr

from ...core.errors import ArenaError
from ...core.words import msg, t, translate
from ...render.replay_page import replay_html
from ...replay.tracefile import Trace, parse_trace, save_trace
from ..config import UIConfig
from .. import popups
from ..exports import unique_stem
from ..language import label


def write_race_files(trace: dict[str, Any], name: str) -> tuple[str, str]:
    """Save a finished race's `trace` (JSON) and its replay page (HTML) under a new name from `name`; returns the two
    paths."""
    stem = unique_stem("replays", f"race-{name}")
    json_path = save_trace(trace, stem.with_suffix(".json"))
    write_replay_page(parse_trace(trace, json_path.name), stem.with_suffix(".html"))
    return str(json_path), str(stem.with_suffix(".html"))


def write_replay_page(trace: Trace, path: Path | None = None, name: str = "replay", page: str | None = None) -> str:
    """Write `trace`'s replay page (`page` where it is already rendered; to `path`, else a new file in the export
    folder); returns its path."""
    path = path or unique_stem("replays", name).with_suffix(".html")
    try:
        path.write_text(page if page is not None else replay_html(trace), encoding="utf-8")
    except OSError as exc:
        raise ArenaError(msg("Cannot write the replay page: {strerror}", strerror=exc.strerror or exc)) from None
    return str(path)


def share_button(config: UIConfig, elem_classes: str) -> gr.DeepLinkButton | None:
    """A deep link to the page as it is now (its results included) where the page is public (a link to a local
    address helps no one else); else None."""
    if not config.is_public:
        return None
    return gr.DeepLinkButton("\U0001f517 Share this result", copied_value="Link copied", size="sm",
                             variant="secondary", elem_classes=[elem_classes, "share-link"])


class RaceDownloads:
    """The Race tab's row after the results: the trace and the replay page of the last race, and the share link."""

    def __init__(self, config: UIConfig):
        self.config = config

    def build(self) -> "RaceDownloads":
        with gr.Row(elem_id="race-downloads"):
            self.trace = gr.DownloadButton(label("ui.replay.download_trace"), value=None, interactive=False, size="sm",
                                           elem_id="download-trace")
            self.page = gr.DownloadButton(label("ui.replay.download_page"), value=None, interactive=False, size="sm",
                                          elem_id="download-replay")
            self.share = share_button(self.config, "race-share")
        return self

    def outputs(self) -> list:
        return [self.trace, self.page]

    def cleared(self) -> dict:
        """Nothing to download (a race is running, or it failed)."""
        return {self.trace: gr.update(value=None, interactive=False), self.page: gr.update(value=None, interactive=False)}

    def ready(self, make_trace: Callable[[], dict[str, Any]], name: str) -> dict:
        """Write the files of a finished race (its trace from `make_trace`, named after `name`) and offer them; a
        failed race offers nothing (docs/DESIGN.md §4), and a trace that cannot be built or written is a warning."""
        try:
            trace, page = write_race_files(make_trace(), name)
        except ArenaError as exc:
            popups.warning(t("replay.files_failed", error=translate(str(exc))))
            return self.cleared()
        return {self.trace: gr.update(value=trace, interactive=True), self.page: gr.update(value=page, interactive=True)}
