"""The page's header: what the arena is and where it runs (pure HTML, no gradio)."""

from __future__ import annotations


def header_html(device: str) -> str:
    where = "GPU" if device.startswith("cuda") else "CPU only"
    return ('<div class="hdr"><h1>Assisted-decoding arena</h1>'
            f'<span class="hdr-chip">transformers generate() \u00b7 {where}</span></div>'
            '<p>Plain decoding (the Baseline pane) races assisted decoding (the Assisted pane) on the same prompt. '
            'Every assisted token shows what happened to it: drafted and accepted, resampled by the target, or a '
            'bonus token.</p>')
