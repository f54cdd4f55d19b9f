"""HTML of a race for every surface that draws one: the Race tab, the Replay tab and the self-contained replay
page (docs/DESIGN.md §8). Strings only, no gradio."""
