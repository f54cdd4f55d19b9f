"""HTML of a race, for every surface that draws one: the Race tab, the Replay tab and the self-contained replay
page (docs/DESIGN.md §3, §4.3). Engine code: strings only, no gradio; the UI and the replay page import it.

- :mod:`app.render.html`      the one escaping helper
- :mod:`app.render.statuses`  the token-status table (labels, terminal colours) and the one stylesheet of a race
- :mod:`app.render.panes`     panes, token spans and the legend
- :mod:`app.render.figures`   stats cards, the identical badge, the rounds chart, the hardware and recording lines
- :mod:`app.render.explain`   the "why" panel
- :mod:`app.render.player`    the JavaScript player that reveals tokens at their recorded times
"""
