"""The one player (docs/DESIGN.md §4.9): its JavaScript lives in ``player.js`` beside this module (a file of its own,
checked as JavaScript by the tests), and the small adapters that start it on the page and on a replay page."""

from __future__ import annotations

from pathlib import Path

#: The playback speeds a recording offers (the replay page's buttons; the player clamps to the same range).
SPEEDS = (0.25, 0.5, 1, 2, 4, 8)
#: The player's source (defines ``window.ArenaPlayer``).
JS = (Path(__file__).with_name("player.js")).read_text(encoding="utf-8")
#: Starts the player inside a gradio ``gr.HTML`` whose value is the race's data (app/render/race_data.py): it draws
#: each new value; ``element``, ``props`` and ``watch`` are gradio's (its ``js_on_load`` arguments). The page loads
#: the player's source in its ``head`` (app/ui/page.py ``launch_kwargs``).
GRADIO_MOUNT = """
const root = element.querySelector('.race-player-root') || element;
const player = window.ArenaPlayer.mount(root, {});
player.update(props.value);
watch('value', () => player.update(props.value));
"""
#: Starts the player on a replay page, from the race data embedded in it.
REPLAY_BOOT = "window.ArenaPlayer.bootReplayPage();"
#: The page's small browser-only events (gradio ``js=``): Race brings the panes into view; the rejected-drafts box
#: shows or hides them (the player draws them all); the Replay tab's frame fits its page.
SHOW_PANES_JS = "() => window.ArenaPlayer.showPanes()"
SHOW_REJECTED_JS = "(show) => { window.ArenaPlayer.showRejected(show); return []; }"
FIT_FRAMES_JS = "window.ArenaPlayer.fitFrames(element);"
