"""The Replay tab: recorded races (the gallery) and uploaded traces, played by the replay page's own player
embedded in the tab (docs/DESIGN.md §4.3)."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from ..uploads import upload_box
from ...core.words import t
from ..language import label
from ..config import UIConfig
from ...render.status import status_html
from .files import share_button
from .handlers import ReplayHandlers
from ...render.player import FIT_FRAMES_JS
from ...render.replay_tab import gallery_headers, gallery_samples, intro_html, placeholder_html, safe_gallery


class ReplayTab:
    """Builds the Replay tab inside an open ``gr.Tab`` (see :meth:`build`); components are on ``ui``."""

    def __init__(self, config: UIConfig):
        self.config = config
        self.ui = SimpleNamespace()
        self.gallery, self.problem = safe_gallery()
        self.handlers = ReplayHandlers(self.ui, self.gallery)

    def build(self, light: dict, uploads: dict) -> "ReplayTab":
        """Create and wire the tab. light: queue settings of instant events; uploads: of those that parse a file."""
        u, h = self.ui, self.handlers
        self.light = light
        u.intro = gr.HTML(intro_html(self.gallery, self.problem), elem_id="replay-intro", js_on_load=None)
        with gr.Row(elem_id="replay-pick", equal_height=False):
            with gr.Column(scale=3, min_width=300):
                u.gallery = gr.Dataset(components=["textbox", "textbox", "textbox"], type="index",
                                       headers=gallery_headers(), label=label("ui.replay.gallery"),
                                       samples=gallery_samples(self.gallery), elem_id="replay-gallery",
                                       samples_per_page=12)
            with gr.Column(scale=1, min_width=240):
                u.upload = upload_box(label=label("ui.replay.upload"), file_types=[".json"], type="filepath",
                                      height=110, elem_id="replay-upload")
                u.download = gr.DownloadButton(label("ui.replay.download"), value=None, interactive=False,
                                               size="sm", elem_id="replay-download")
                u.share = share_button(self.config, "replay-share")
        u.status = gr.HTML(status_html(t("replay.nothing_playing")),
                           elem_id="replay-status", js_on_load=None)
        u.player = gr.HTML(placeholder_html(), elem_id="replay-player", js_on_load=FIT_FRAMES_JS)
        outputs = [u.player, u.status, u.download]
        u.gallery.click(h.gallery_picked, [u.gallery], outputs, show_progress="hidden", **uploads)
        u.upload.upload(h.uploaded, [u.upload], outputs, show_progress="hidden", **uploads)
        return self

    def on_load(self, demo: gr.Blocks) -> None:
        """Redraw the tab's HTML in the visitor's language when a page loads."""
        demo.load(lambda status, player: self.handlers.page_loaded(self.problem, status, player),
                  [self.ui.status, self.ui.player], self.handlers.loaded_outputs(),
                  show_progress="hidden", **self.light)
