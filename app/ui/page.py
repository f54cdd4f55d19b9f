"""The page: a header and one tab per tool, built by :func:`build_app`; no model is loaded here."""

from __future__ import annotations

import os
from dataclasses import dataclass

import gradio as gr
from starlette.middleware import Middleware

from .bench.tab import BenchTab
from .config import UIConfig
from .planner.tab import PlannerTab
from ..race.prepare import machine_facts
from .race.tab import RaceTab
from .replay.tab import ReplayTab
from .theme import make_theme
from ..render.page import header_html
from .engines import engine_choice_words, engine_name
from .language import LanguageBoot, gradio_i18n, label
from .race.controls import preset_choice_words
from .bench.tab import bench_preset_words
from ..render.preset_words import knob_words
from .uploads import UPLOAD_ARIA_JS, UploadCap, note_used_uploads
from .upload_budget import UploadLedger
from .boundary import clean_inputs, forget_refused_inputs, guard_preprocessing
from .mcp import McpCallers, mcp_lifespan
from .visitors import GENERATION, guard_generation
from ..bench.suite import MAX_SUITE_BYTES
from ..deploy.spec import MAX_PLAN_BYTES
from ..render.player import JS as PLAYER_JS
from ..render.style import PAGE_CSS, PAGE_FRAME_CSS
from ..replay.tracefile import MAX_TRACE_BYTES

TITLE = "Assisted-decoding arena"
#: The largest upload accepted (bytes): the largest file any parser reads (a trace; suites and plans are smaller).
MAX_UPLOAD_BYTES = max(MAX_TRACE_BYTES, MAX_SUITE_BYTES, MAX_PLAN_BYTES)
#: gradio's file cache: swept every CACHE_SWEEP seconds of files older than CACHE_MAX_AGE seconds.
CACHE_SWEEP, CACHE_MAX_AGE = 3600, 6 * 3600
#: Events that parse an upload run at most this many at once (their parsers cap the bytes they read).
UPLOAD_CONCURRENCY = 2


def launch_kwargs(config: UIConfig | None = None) -> dict:
    """Theme, CSS, the player's script and gradio's tables of words for ``demo.launch(**launch_kwargs(config))``
    (gradio 6 takes them at launch)."""
    endpoints = config.endpoints if config is not None else ()
    return {"theme": make_theme(), "css": PAGE_CSS, "head": f"<style>{PAGE_FRAME_CSS}</style><script>{PLAYER_JS}</script>",
            "footer_links": ["api", "gradio"],
            "i18n": gradio_i18n(preset_choice_words, bench_preset_words, knob_words, lambda: engine_choice_words(endpoints))}


def app_kwargs(demo: gr.Blocks, uploads: UploadLedger | None = None) -> dict:
    """FastAPI arguments of the page: MCP callers as themselves (first, so every later part sees the caller), one upload
    request's whole body capped (gradio's ``max_file_size`` caps each file) and each visitor's uploads and the upload
    cache counted in `uploads`, the visitor's language, and MCP refusals as the page's lines (docs/DESIGN.md §4.5,
    §4.8)."""
    return {"middleware": [Middleware(McpCallers), Middleware(UploadCap, files_limit=MAX_UPLOAD_BYTES, ledger=uploads),
                           Middleware(LanguageBoot)],
            "lifespan": mcp_lifespan(demo)}


@dataclass
class App:
    """The built page: the Blocks and each tab's object (``app.race.handlers``, ``app.planner.ui.measure``)."""

    config: UIConfig
    demo: gr.Blocks
    race: RaceTab
    planner: PlannerTab
    bench: BenchTab | None = None
    replay: ReplayTab | None = None
    uploads: UploadLedger | None = None

    def launch(self, **kwargs):
        """Queue and serve (docs/DESIGN.md §4.5); extra keyword arguments go to ``Blocks.launch``."""
        # uvicorn (started by gradio with its own defaults) reads the trusted proxies from the environment when it
        # starts, and replaces a trusted proxy's address by the visitor's: the one place that decides an address.
        os.environ["FORWARDED_ALLOW_IPS"] = self.config.trusted_proxies
        self.demo.queue(default_concurrency_limit=self.config.generation_concurrency(), max_size=self.config.queue_size)
        if self.config.is_public:
            guard_generation(self.demo)
        return self.demo.launch(server_name=self.config.host, server_port=self.config.port, share=self.config.share,
                                show_error=False, max_file_size=MAX_UPLOAD_BYTES,
                                app_kwargs=app_kwargs(self.demo, self.uploads),
                                mcp_server=self.config.mcp_server,
                                **launch_kwargs(self.config), **kwargs)


def build_app(config: UIConfig) -> App:
    """The whole page for `config`."""
    gen = dict(concurrency_id=GENERATION, concurrency_limit=config.generation_concurrency())
    light = dict(concurrency_limit=None, api_visibility="private")
    uploads = dict(concurrency_id="uploads", concurrency_limit=UPLOAD_CONCURRENCY, api_visibility="private")
    with gr.Blocks(title=TITLE, fill_width=True, analytics_enabled=False, delete_cache=(CACHE_SWEEP, CACHE_MAX_AGE)) as demo:
        device = machine_facts()["device"]
        header = gr.HTML(header_html(device), elem_id="arena-header")
        with gr.Tabs(elem_id="tabs", selected="race"):
            with gr.Tab(label("ui.tab.race"), id="race", elem_id="tab-race"):
                race = RaceTab(config).build(gen, light)
            with gr.Tab(label("ui.tab.planner"), id="planner", elem_id="tab-planner"):
                planner = PlannerTab(config).build(gen, light)
            with gr.Tab(label("ui.tab.bench"), id="bench", elem_id="tab-bench"):
                bench = BenchTab(config).build(gen, light, uploads)
            with gr.Tab(label("ui.tab.replay"), id="replay", elem_id="tab-replay"):
                replay = ReplayTab(config).build(light, uploads)
        # the server writes the page's HTML in the visitor's language: once more as the page loads (docs/DESIGN.md §4.10);
        # the header's chip names the serving engine while the Race tab's preset picks one
        engines = {target.name: target for target in config.endpoints}

        def header_for(choice):
            target = engines.get(engine_name(choice))
            return header_html(device, target.engine, target.name) if target else header_html(device)

        demo.load(header_for, [race.ui.preset], [header], show_progress="hidden", **light)
        race.ui.preset.change(header_for, [race.ui.preset], [header], show_progress="hidden", **light)
        for tab in (race, planner, bench, replay):
            if hasattr(tab, "on_load"):
                tab.on_load(demo)
        demo.load(None, None, None, js=UPLOAD_ARIA_JS, queue=False)
    clean_inputs(demo)
    guard_preprocessing(demo)
    forget_refused_inputs(demo)
    ledger = UploadLedger(config.upload_limits, forget=demo.upload_file_set.discard)  # what visitors upload (§4.5)
    note_used_uploads(demo, ledger)
    return App(config, demo, race, planner, bench, replay, ledger)
