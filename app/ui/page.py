"""The page: a header and one tab per tool, built by :func:`build_app`; no model is loaded here.

:class:`App` holds the built ``gr.Blocks`` and each tab's object (components and handlers), so
tests and benchmarks reach them as ``app.race.handlers`` or ``app.planner.ui.measure`` instead of
attributes glued onto the Blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .bench.tab import BenchTab
from .config import UIConfig
from .planner.tab import PlannerTab
from .race.handlers import machine_facts
from .race.tab import RaceTab
from .replay.tab import ReplayTab
from .theme import CSS, PAGE_CSS, make_theme

TITLE = "Assisted-decoding arena"


def header_html(device: str) -> str:
    where = "GPU" if device.startswith("cuda") else "CPU only"
    return ('<div class="hdr"><h1>Assisted-decoding arena</h1>'
            f'<span class="hdr-chip">transformers generate() \u00b7 {where}</span></div>'
            '<p>Plain decoding (left) races assisted decoding (right) on the same prompt. Every assisted token shows '
            'what happened to it: drafted and accepted, resampled by the target, or a bonus token.</p>')


def launch_kwargs() -> dict:
    """Theme and CSS for ``demo.launch(**launch_kwargs())`` (gradio 6 takes them at launch)."""
    return {"theme": make_theme(), "css": CSS, "head": f"<style>{PAGE_CSS}</style>", "footer_links": ["api", "gradio"]}


@dataclass
class App:
    """The built page: the Blocks and its tabs. Generation events share one queue slot group ("generation")."""

    config: UIConfig
    demo: gr.Blocks
    race: RaceTab
    planner: PlannerTab
    bench: BenchTab | None = None
    replay: ReplayTab | None = None

    def launch(self, **kwargs):
        """Queue (the generation limit) and serve; extra keyword arguments go to ``Blocks.launch``."""
        self.demo.queue(default_concurrency_limit=self.config.generation_concurrency())
        return self.demo.launch(server_name=self.config.host, server_port=self.config.port, share=self.config.share,
                         show_error=False, **launch_kwargs(), **kwargs)


def build_app(config: UIConfig) -> App:
    """The whole page for `config`."""
    gen = dict(concurrency_id="generation", concurrency_limit=config.generation_concurrency())
    light = dict(concurrency_limit=None, api_visibility="private")
    with gr.Blocks(title=TITLE, fill_width=True, analytics_enabled=False) as demo:
        gr.HTML(header_html(machine_facts()["device"]), elem_id="arena-header")
        with gr.Tabs(elem_id="tabs", selected="race"):
            with gr.Tab("Race", id="race", elem_id="tab-race"):
                race = RaceTab(config).build(gen, light)
            with gr.Tab("Planner", id="planner", elem_id="tab-planner"):
                planner = PlannerTab(config).build(gen, light)
            with gr.Tab("Benchmark", id="bench", elem_id="tab-bench"):
                bench = BenchTab(config).build(gen, light)
            with gr.Tab("Replay", id="replay", elem_id="tab-replay"):
                replay = ReplayTab(config).build(light)
        race.on_load(demo)
    return App(config, demo, race, planner, bench, replay)
