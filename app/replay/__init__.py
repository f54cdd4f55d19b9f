"""Traces and replays (docs/DESIGN.md §4.3): the trace file, the self-contained replay page and the gallery of
recorded races. Engine code: no gradio here."""
