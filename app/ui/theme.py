"""The page's gradio theme (gradio 6 takes it and the CSS at ``launch()``); every stylesheet is app/render's
(app/render/style.py). Fonts are local or system fonts: nothing is fetched."""

from __future__ import annotations

import gradio as gr



def make_theme() -> gr.themes.Base:
    """A quiet theme with system fonts; every text at least 4.5:1 against its background in light and dark
    (WCAG AA: the Soft theme's greys and blue labels are 2.4-3.7:1)."""
    return gr.themes.Soft(
        primary_hue=gr.themes.colors.blue,
        neutral_hue=gr.themes.colors.slate,
        radius_size=gr.themes.sizes.radius_md,
        font=("ui-sans-serif", "system-ui", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "sans-serif"),
        font_mono=("ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "DejaVu Sans Mono", "monospace"),
    ).set(
        body_background_fill="#f6f7f9",
        body_background_fill_dark="#0f1115",
        block_radius="12px",
        button_primary_background_fill="#0072B2",
        button_primary_background_fill_hover="#005b8f",
        button_primary_background_fill_dark="#0072B2",
        button_primary_background_fill_hover_dark="#005b8f",
        button_primary_text_color="white",
        body_text_color_subdued="*neutral_600",
        input_placeholder_color="*neutral_500",
        input_placeholder_color_dark="*neutral_400",
        block_label_text_color="*primary_700",
        block_title_text_color="*primary_700",
        checkbox_label_background_fill_selected="*primary_600",
        link_text_color_dark="*secondary_300",
        link_text_color_active_dark="*secondary_300",
        link_text_color_hover_dark="*secondary_200",
        link_text_color_visited_dark="*secondary_300",
    )
