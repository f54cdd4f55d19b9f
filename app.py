"""Start the assisted-decoding arena web app: ``python app.py [--port N] [--share] ...``.

Parses the launch flags, builds the page (no model loads until the first race) and serves it.
See ``python app.py --help``.
"""

from __future__ import annotations

import logging
import sys


def main(argv: list[str] | None = None) -> None:
    from app.ui.config import parse_args

    config = parse_args(argv)
    config.apply_memory_budget()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    from app.ui.page import build_app
    from app.ui.streaming import finish_work

    build_app(config).launch()
    finish_work()  # the server has closed (Ctrl-C): no work thread may be left inside torch


if __name__ == "__main__":
    main()
