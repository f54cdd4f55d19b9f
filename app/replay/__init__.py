"""Traces and replays (docs/DESIGN.md §4): save a finished race as one JSON file, read it back with one clear
message for anything malformed, and render it as a self-contained HTML page that replays the race at its
recorded speed. Engine code: no gradio here.

- :mod:`app.replay.tracefile` build, save and load a trace (``race --save-trace``)
- :mod:`app.replay.page`     the replay page (``python -m app replay FILE --html OUT``)
- :mod:`app.replay.assets`   the page's inline CSS and JavaScript
- :mod:`app.replay.gallery`  the recorded races in ``assets/races/`` and their index
"""
