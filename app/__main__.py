"""``python -m app``: the command-line interface (see app/cli.py)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
