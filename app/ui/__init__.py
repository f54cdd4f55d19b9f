"""The web UI: builds the gradio page and wires events (docs/DESIGN.md §8); HTML comes from app.render."""
