"""Pieces every sub-command shares: the one-line-error parser, knob flags from the knob table, logging."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any, Callable, Iterable

from ..core.download import DOWNLOADING
from ..core.errors import ArenaError
from ..core.knobs import KNOB_TABLE
from ..core.requests import read_text_file


class CleanParser(argparse.ArgumentParser):
    """argparse that reports errors as one line (ArenaError: exit status 2, no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArenaError(f"{self.prog}: {message}")


def add_knob_flags(parser: argparse.ArgumentParser, names: Iterable[str], **help_overrides: str) -> None:
    """One flag per knob, named, typed and bounded by the knob table (``--prompt-lookup-num-tokens``)."""
    for name in names:
        k = KNOB_TABLE[name]
        metavar = "{" + ",".join(k.choices) + "}" if k.choices else k.kind.upper()
        parser.add_argument(k.flag, dest=name, type=k.parse_flag, metavar=metavar,
                            help=help_overrides.get(name, f"{k.help} ({k.bounds_text()})"))


def given(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """{name: value} of the flags that were given (not None)."""
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}


def emit(as_json: bool, obj: Any, human: Callable[[], None]) -> int:
    """--json: `obj` as exactly one JSON object on stdout; else the human form. Returns exit status 0."""
    if as_json:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    else:
        human()
    return 0


def read_prompt(args: argparse.Namespace) -> str | list[str]:
    """The prompt text; a list when --prompt was given more than once (rejected by the engine)."""
    if args.prompt is not None and args.prompt_file is not None:
        raise ArenaError("Give either --prompt or --prompt-file, not both.")
    if args.prompt_file is not None:
        return read_text_file(args.prompt_file, "prompt file")
    if args.prompt is None:
        raise ArenaError("Give a prompt with --prompt TEXT or --prompt-file FILE.")
    return args.prompt[0] if len(args.prompt) == 1 else args.prompt


def configure_logging(verbose: bool) -> None:
    """Quiet by default: our progress and library warnings only with --verbose."""
    logging.basicConfig(level=logging.INFO if verbose else logging.ERROR, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s", force=True)
    if not verbose:
        import transformers

        transformers.utils.logging.set_verbosity_error()
        transformers.utils.logging.disable_progress_bar()
        logging.getLogger("huggingface_hub").setLevel(logging.ERROR)


def progress_logger(message: str) -> None:
    """Loading and measuring progress, logged for --verbose; a model download's progress (a first load can take
    minutes) also goes to a terminal's stderr without it, one line redrawn in place (docs/DESIGN.md §6)."""
    logger = logging.getLogger("app")
    logger.info(message)
    if logger.isEnabledFor(logging.INFO) or not sys.stderr.isatty():
        return
    if message.startswith(DOWNLOADING):
        sys.stderr.write(f"\r{message}\x1b[K")
        _drawn[0] = True
    elif _drawn[0]:
        sys.stderr.write("\n")
        _drawn[0] = False
    sys.stderr.flush()


#: Whether progress_logger's last write to a terminal was a download line still open (no newline yet).
_drawn = [False]
