"""Launch options of the web app (``python app.py --help``) and the limits they imply; no model is loaded here."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, fields
from typing import Sequence

from ..core.errors import ArenaError
from ..core.presets import get_preset
from ..core.requests import LOCAL_WORK_TOKENS, PUBLIC_WORK_TOKENS, Limits
from ..engine.target import SYNTAX, EngineTarget
from ..engine.target import parse_endpoint as parse_target
from .upload_budget import UPLOAD_WINDOW, UploadLimits

DEFAULT_PRESET = "offline-prompt-lookup"


def parse_endpoint(text: str) -> EngineTarget:
    """``--endpoint NAME=URL[,plain=URL2][,engine=E][,model=M]`` -> EngineTarget (app/engine/target.py, which the
    command line shares); argparse.ArgumentTypeError (one line) for anything else."""
    try:
        return parse_target(text)
    except ArenaError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def has_gpu() -> bool:
    """True when torch sees a CUDA device (cheap: no model is loaded)."""
    import torch

    return torch.cuda.is_available()


@dataclass(frozen=True)
class UIConfig:
    """Operator settings for one server process: one field per launch flag (see :func:`build_parser` for each
    one's meaning; None: the default derived from the machine or from `is_public`)."""

    host: str = "127.0.0.1"
    port: int | None = None
    share: bool = False
    preset: str = DEFAULT_PRESET
    allow_local_models: bool = False
    trust_remote_code: bool = False
    max_new_tokens_cap: int = 512
    max_prompt_tokens: int = 4096
    concurrency_limit: int | None = None
    memory_budget_gb: float | None = None
    public: bool | None = None
    work_budget_tokens: int | None = None
    bench_minutes: float | None = None
    max_model_gb: float | None = None
    queue_size: int = 16
    endpoints: tuple[EngineTarget, ...] = ()
    forwarded_allow_ips: str | None = None
    mcp: bool | None = None
    upload_budget_mb: float | None = None
    upload_cache_mb: float | None = None

    @property
    def is_public(self) -> bool:
        """Strangers can reach the page: the flag, else a --share link or a Space (SPACE_ID is set)."""
        return self.public if self.public is not None else bool(self.share or os.environ.get("SPACE_ID")
                                                                    or os.environ.get("SYSTEM") == "spaces")

    def memory_budget_bytes(self) -> int:
        """Bytes of model weights kept per device: the flag, else derived from this machine's memory."""
        from ..core.loader import default_memory_budget

        return int(self.memory_budget_gb * 1e9) if self.memory_budget_gb is not None else default_memory_budget()

    def apply_memory_budget(self) -> None:
        """Set the process-wide model cache's budget (bytes of weights per device)."""
        from ..core.loader import MODEL_CACHE

        MODEL_CACHE.budget_bytes = self.memory_budget_bytes()

    @property
    def bench_seconds(self) -> float | None:
        """The longest benchmark run from the page (seconds; None: no limit)."""
        minutes = self.bench_minutes if self.bench_minutes is not None else (PUBLIC_BENCH_MINUTES if self.is_public
                                                                             else None)
        return None if minutes is None else minutes * 60

    @property
    def limits(self) -> Limits:
        """The engine limits every request of this server runs under."""
        work = self.work_budget_tokens or (PUBLIC_WORK_TOKENS if self.is_public else LOCAL_WORK_TOKENS)
        max_model = int(self.max_model_gb * 1e9) if self.max_model_gb is not None else self.memory_budget_bytes()
        return Limits(max_prompt_tokens=self.max_prompt_tokens, max_new_tokens=self.max_new_tokens_cap,
                      allow_local=self.allow_local_models, trust_remote_code=self.trust_remote_code,
                      work_tokens=work, max_model_bytes=max_model)

    @property
    def upload_limits(self) -> UploadLimits:
        """What visitors may upload (app/ui/upload_budget.py): each one's bytes per window and the upload cache's total,
        from the flags, else a public page's defaults; none on a page reachable only from this machine."""
        def size(flag: float | None, public: float) -> int | None:
            mb = flag if flag is not None else public if self.is_public else None
            return None if mb is None else int(mb * 1e6)

        return UploadLimits(size(self.upload_budget_mb, PUBLIC_UPLOAD_MB), size(self.upload_cache_mb, PUBLIC_UPLOAD_CACHE_MB))

    @property
    def trusted_proxies(self) -> str:
        """The proxies whose ``X-Forwarded-For`` names the visitor (uvicorn's FORWARDED_ALLOW_IPS syntax: addresses and
        networks, comma-separated; "" trusts none): the flag, else $FORWARDED_ALLOW_IPS, else the Space's own proxy hop
        on a Space, gradio's local tunnel client with --share, and none otherwise (docs/DESIGN.md §4.5)."""
        if self.forwarded_allow_ips is not None:
            return self.forwarded_allow_ips
        if "FORWARDED_ALLOW_IPS" in os.environ:
            return os.environ["FORWARDED_ALLOW_IPS"]
        if os.environ.get("SPACE_ID") or os.environ.get("SYSTEM") == "spaces":
            return SPACE_PROXIES
        return LOOPBACK if self.share else ""

    @property
    def mcp_server(self) -> bool:
        """Whether the page also serves its named API as MCP tools: the flag, else $GRADIO_MCP_SERVER (gradio's own
        switch, which a Space operator sets as a variable)."""
        if self.mcp is not None:
            return self.mcp
        return os.environ.get("GRADIO_MCP_SERVER", "").lower() in ("1", "true", "yes")

    def generation_concurrency(self) -> int:
        """How many races may run at once: the flag, else 1 on CPU and 2 on GPU."""
        return self.concurrency_limit if self.concurrency_limit is not None else 2 if has_gpu() else 1


#: A Space is reached only through its own proxy, from the platform's private network; it appends the visitor.
SPACE_PROXIES = "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7"
#: gradio's --share tunnel reaches the page from a client on this machine.
LOOPBACK = "127.0.0.1,::1"
#: A public page's longest benchmark run (minutes).
PUBLIC_BENCH_MINUTES = 3.0
#: A public page's upload limits (MB): one visitor's uploads per window (UPLOAD_WINDOW, 10 minutes: four of the largest
#: files a parser reads), and the bytes of uploads the server keeps at once.
PUBLIC_UPLOAD_MB, PUBLIC_UPLOAD_CACHE_MB = 64.0, 1024.0
#: The smallest --max-new-tokens-cap: a fair measurement warms up with 8 tokens a side, and the sliders need room.
MIN_TOKENS_CAP = 8


def _at_least(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


_positive = _at_least(1)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python app.py",
        description="The assisted-decoding arena: race plain and assisted generate() in the browser.",
    )
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                        help="interface to listen on (default 127.0.0.1, or $GRADIO_SERVER_NAME as on a Space; "
                             "0.0.0.0 for the network)")
    parser.add_argument("--port", type=int, default=None, help="port (default: 7860 or the next free one)")
    parser.add_argument("--share", action="store_true", help="also open a public gradio.live link (off by default)")
    parser.add_argument("--preset", default=DEFAULT_PRESET, help=f"preset selected on page load (default {DEFAULT_PRESET})")
    parser.add_argument("--allow-local-models", action="store_true",
                        help="accept local folders as target/assistant ids (hub ids only without it)")
    parser.add_argument("--trust-remote-code", action="store_true",
                        help="let models run code from their repository (off by default)")
    parser.add_argument("--max-new-tokens-cap", type=_at_least(MIN_TOKENS_CAP), default=512,
                        help=f"the most new tokens one request may ask for (default 512, at least {MIN_TOKENS_CAP})")
    parser.add_argument("--max-prompt-tokens", type=_positive, default=4096,
                        help="the longest prompt accepted, in tokens (default 4096)")
    parser.add_argument("--concurrency-limit", type=_positive, default=None,
                        help="races that may run at once (default: 1 on CPU, 2 on GPU)")
    parser.add_argument("--memory-budget-gb", type=float, default=None,
                        help="keep at most this many GB of model weights per device; least recently used models "
                             "are dropped (default: 60%% of this machine's memory, or of the GPU's)")
    parser.add_argument("--max-model-gb", type=float, default=None,
                        help="refuse models with more GB of weights than this: hub models before any download, "
                             "the packaged Qwen pair before loading (default: the memory budget)")
    parser.add_argument("--public", action=argparse.BooleanOptionalAction, default=None,
                        help="treat the page as reachable by strangers: lower work budget, a time limit on the "
                             "benchmark, one job per visitor (default: on with --share or on a Space)")
    parser.add_argument("--work-budget-tokens", type=_positive, default=None,
                        help=f"tokens one request may generate over all its races, planner and benchmark passes "
                             f"included (default {PUBLIC_WORK_TOKENS:,} when public, else {LOCAL_WORK_TOKENS:,})")
    parser.add_argument("--bench-minutes", type=float, default=None,
                        help=f"stop a benchmark run from the page after this many minutes (default "
                             f"{PUBLIC_BENCH_MINUTES:g} when public, else no limit)")
    parser.add_argument("--upload-budget-mb", type=float, default=None,
                        help=f"MB of files one visitor may upload per {UPLOAD_WINDOW / 60:g} minutes; more is refused "
                             f"(default {PUBLIC_UPLOAD_MB:g} when public, else no limit)")
    parser.add_argument("--upload-cache-mb", type=float, default=None,
                        help=f"MB of uploads the server keeps at once; more is refused until older ones go (default "
                             f"{PUBLIC_UPLOAD_CACHE_MB:g} when public, else no limit)")
    parser.add_argument("--queue-size", type=_positive, default=16,
                        help="jobs that may wait in the queue; more are refused with 'queue is full' (default 16)")
    parser.add_argument("--endpoint", dest="endpoints", type=parse_endpoint, action="append", default=[],
                        metavar=SYNTAX,
                        help="offer a running serving engine as a race target under NAME (repeatable); URL drafts, "
                             "URL2 serves the same model without speculation; engine= says which engine (default "
                             "llama.cpp), model= the served model's name (vLLM needs it)")
    parser.add_argument("--mcp", action=argparse.BooleanOptionalAction, default=None,
                        help="also serve race, measure and plan as MCP tools at /gradio_api/mcp/ (the same limits, "
                             "budgets and queue as the page; default: $GRADIO_MCP_SERVER, off)")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="ADDRESSES",
                        help="proxies (addresses or networks, comma-separated) trusted to name the visitor in "
                             "X-Forwarded-For, as uvicorn's option of that name; a visitor's address decides its one "
                             "job at a time (default: $FORWARDED_ALLOW_IPS, else the Space's proxy on a Space, this "
                             "machine with --share, else none: the connection's own address)")
    return parser


def parse_args(argv: Sequence[str] | None = None) -> UIConfig:
    """Parse the command line into a :class:`UIConfig` (exits with a usage line on bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        get_preset(args.preset)
    except ArenaError as exc:
        parser.error(str(exc))
    for flag in ("memory_budget_gb", "max_model_gb", "bench_minutes", "upload_budget_mb", "upload_cache_mb"):
        value = getattr(args, flag)
        if value is not None and not 0 < value < float("inf"):
            parser.error(f"--{flag.replace('_', '-')} must be a number above 0")
    names = [e.name for e in args.endpoints]
    if len(set(names)) != len(names):
        parser.error("--endpoint: each NAME once")
    args.endpoints = tuple(args.endpoints)
    return UIConfig(**{f.name: getattr(args, f.name) for f in fields(UIConfig)})  # each flag's dest is a field
