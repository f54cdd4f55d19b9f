"""The Benchmark tab: presets x a prompt suite by category, a live leaderboard, plots and downloads (the engine is
app/bench, docs/DESIGN.md §4.4). Section builders put the components on a :class:`BenchUI`."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from ..uploads import upload_box
from ...bench.suite import BUILTIN_CATEGORIES, SPLIT_CHOICES
from ...core.presets import load_presets
from ..config import UIConfig
from ...render.status import status_html
from .handlers import BenchHandlers, BenchState
from ...render.bench_tab import empty_html, hint_html, intro_html
from ...render.preset_words import preset_where_text
from ...core.words import t
from ..language import label

DEFAULT_PRESETS = ("offline-prompt-lookup",)


def bench_presets() -> list:
    """The presets the tab offers, those that run offline first."""
    return [p for _, p in sorted(load_presets().items(), key=lambda item: (item[1].where != "offline", item[0]))]


def bench_preset_words() -> dict[str, str]:
    """The preset list's entries in the current language, by their ``ui.`` keys (for gradio's tables)."""
    return {f"ui.bench_preset.{p.id}": preset_where_text(p) for p in bench_presets()}


class BenchUI(SimpleNamespace):
    """The Benchmark tab's components by name."""

    def inputs(self) -> list:
        return [self.state, self.presets, self.suite, self.categories, self.split, self.limit, self.repeats,
                self.max_new_tokens]

    def outputs(self) -> list:
        return [self.status, self.board, self.heatmap, self.positions, self.scatter, self.runs, self.files, self.run,
                self.stop]


class BenchTab:
    """Builds the Benchmark tab (see :meth:`build`)."""

    def __init__(self, config: UIConfig):
        self.config = config
        self.ui = BenchUI()
        self.handlers = BenchHandlers(config, self.ui)

    def build(self, gen: dict, light: dict, uploads: dict) -> "BenchTab":
        """Create and wire the tab. gen: queue settings of generation events; light: of instant ones; uploads: of
        events that parse an uploaded file."""
        self.gen, self.light, self.uploads = gen, light, uploads
        self.ui.state = gr.State(BenchState())
        self.ui.intro = gr.HTML(intro_html(), elem_id="bench-intro")
        with gr.Row(elem_id="bench-row"):
            with gr.Column(scale=2, min_width=300, elem_id="bench-inputs"):
                self._inputs()
            with gr.Column(scale=5, min_width=320, elem_id="bench-outputs"):
                self._outputs()
        self._wire()
        return self

    def _inputs(self) -> None:
        u = self.ui
        offered = bench_presets()
        start = [p for p in DEFAULT_PRESETS if p in {o.id for o in offered}] or [self.config.preset]
        choices = [(label(f"ui.bench_preset.{p.id}"), p.id) for p in offered]
        u.presets = gr.CheckboxGroup(choices, value=start, label=label("ui.bench.presets"), elem_id="bench-presets",
                                     info=label("ui.bench.presets_info"))
        u.suite = upload_box(None, file_types=[".jsonl", ".json", ".csv"], label=label("ui.bench.suite"),
                            elem_id="bench-suite", height=110)
        u.hint = gr.HTML(hint_html(), elem_id="bench-hint")
        u.categories = gr.CheckboxGroup(list(BUILTIN_CATEGORIES), value=list(BUILTIN_CATEGORIES),
                                        label=label("ui.bench.categories"), elem_id="bench-categories")
        u.split = gr.Radio([(label(f"ui.bench.split.{s}"), s) for s in SPLIT_CHOICES], value="all",
                           label=label("ui.bench.split"), elem_id="bench-split", info=label("ui.bench.split_info"))
        with gr.Row():
            u.limit = gr.Slider(1, 20, value=2, step=1, label=label("ui.bench.limit"), elem_id="bench-limit")
            u.repeats = gr.Slider(1, 5, value=1, step=1, label=label("ui.bench.repeats"), elem_id="bench-repeats")
        cap = self.config.max_new_tokens_cap
        u.max_new_tokens = gr.Slider(min(8, cap - 1), cap, value=min(32, cap), step=1, label=label("ui.bench.max_new_tokens"),
                                     elem_id="bench-max-new-tokens")
        with gr.Row():
            u.run = gr.Button(label("ui.bench.run"), variant="primary", elem_id="bench-run-btn", scale=3)
            u.stop = gr.Button(label("ui.bench.stop"), variant="stop", interactive=False, elem_id="bench-stop-btn", scale=1)
        u.status = gr.HTML(status_html(t("bench.start")), elem_id="bench-status")

    def _outputs(self) -> None:
        u = self.ui
        u.board = gr.HTML(empty_html(), elem_id="bench-board")
        with gr.Row(elem_id="bench-plots"):
            u.heatmap = gr.HTML("", elem_id="bench-heatmap")
        with gr.Row(elem_id="bench-plots-2"):
            u.positions = gr.HTML("", elem_id="bench-positions")
            u.scatter = gr.HTML("", elem_id="bench-scatter")
        u.files = gr.File(None, file_count="multiple", label=label("ui.bench.files"),
                          interactive=False, visible=False, elem_id="bench-files")
        with gr.Accordion(label("ui.bench.runs"), open=False, elem_id="bench-runs-box"):
            u.runs = gr.HTML("", elem_id="bench-runs")

    def _wire(self) -> None:
        """Run shares the generation slot with races and the planner; the rest never waits."""
        u, h = self.ui, self.handlers
        u.suite.change(h.suite_changed, [u.suite], [u.categories, u.status], show_progress="hidden", **self.uploads)
        u.run.click(h.run, u.inputs(), u.outputs(), show_progress="full", show_progress_on=[u.status],
                    api_visibility="private", **self.gen)
        u.stop.click(h.stop, [u.state], [u.status], show_progress="hidden", **self.light)

    def on_load(self, demo: gr.Blocks) -> None:
        """Redraw the tab's HTML in the visitor's language when a page loads."""
        demo.load(self.handlers.page_loaded, [self.ui.status, self.ui.board], self.handlers.loaded_outputs(),
                  show_progress="hidden", **self.light)
