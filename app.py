"""Start the assisted-decoding arena web app: ``python app.py [--port N] [--share] ...``.

Parses the launch flags, builds the page (no model loads until the first race), puts the
events on one queue and launches. See ``python app.py --help``.
"""

from __future__ import annotations

import logging
import sys


def main(argv: list[str] | None = None) -> None:
    from app.ui.config import parse_args

    config = parse_args(argv)
    config.apply_memory_budget()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    from app.ui.layout import build_demo, launch_kwargs

    demo = build_demo(config)
    demo.queue(default_concurrency_limit=config.generation_concurrency())
    demo.launch(server_name=config.host, server_port=config.port, share=config.share, show_error=False,
                **launch_kwargs())


if __name__ == "__main__":
    main()
