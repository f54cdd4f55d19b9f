"""A serving engine the operator offers (docs/DESIGN.md §4.7): its name, the URL of the server that drafts, its plain
partner, which engine it is and the model it serves. The page's launch flag ``--endpoint NAME=URL[,plain=URL2]
[,engine=E][,model=M]`` and the command line's ``--endpoint URL --plain-endpoint URL2 --engine E --model M`` both end
up as an :class:`EngineTarget`; visitors pick one by NAME and never type a URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..core.errors import ArenaError
from ..core.knobs import shown
from ..core.sources import MAX_ID_CHARS
from ..core.words import msg
from .http import Endpoint

#: The engines the arena reads (app/engine/engines.py), llama.cpp first: the default.
ENGINE_NAMES = ("llama.cpp", "vllm", "sglang")
#: An engine's name on the page: letters, digits, dot, dash, underscore.
_TARGET_NAME = re.compile(r"^[A-Za-z0-9][\w.\-]{0,39}$", re.ASCII)
#: The command line's flags for an engine's two URLs (``race`` and ``bench``).
CLI_LABELS = ("--endpoint", "--plain-endpoint")
#: The options after the URL in ``NAME=URL,key=value,...``.
_OPTIONS = ("plain", "engine", "model")
SYNTAX = "NAME=URL[,plain=URL2][,engine=llama.cpp|vllm|sglang][,model=NAME]"


@dataclass(frozen=True)
class EngineTarget:
    """name: how the page and messages call it; url: the server that drafts; plain_url: the same model served without
    speculation (None: not given); engine: one of :data:`ENGINE_NAMES`; model: the served model's name (vLLM needs it;
    None: whatever the endpoints serve, checked to be the same); hide_urls: messages name the engine instead of its
    URLs (the page: a visitor never sees the operator's addresses)."""

    name: str
    url: str
    plain_url: str | None = None
    engine: str = "llama.cpp"
    model: str | None = None
    hide_urls: bool = False

    def endpoints(self) -> tuple[Endpoint, Endpoint | None]:
        """(the assisted endpoint, the plain one or None), named as the messages call them; with `hide_urls`, their
        addresses are shown as the engine's name."""
        hidden = (f"{self.name}'s address", f"{self.name}'s plain address") if self.hide_urls else (None, None)
        plain = Endpoint(self.plain_url, "plain endpoint", hidden[1]) if self.plain_url else None
        return Endpoint(self.url, "assisted endpoint", hidden[0]), plain


def check_engine(engine: str | None, where: str = "--engine") -> str:
    """`engine` (None: llama.cpp) if the arena reads it; ArenaError naming the choices otherwise."""
    engine = engine or ENGINE_NAMES[0]
    if engine not in ENGINE_NAMES:
        raise ArenaError(msg("{where}: unknown engine {engine}; choose {ENGINE_NAMES}.", where=where, engine=repr(engine),
                             ENGINE_NAMES=', '.join(ENGINE_NAMES)))
    return engine


def check_model_name(model: str | None, where: str = "--model") -> str | None:
    """A served model's name as given (None or blank: not given): printable, at most MAX_ID_CHARS characters."""
    if model is None or not model.strip():
        return None
    if len(model) > MAX_ID_CHARS or not model.isprintable():
        raise ArenaError(msg("{where}: a model name is printable text of at most {MAX_ID_CHARS} characters.", where=where,
                             MAX_ID_CHARS=MAX_ID_CHARS))
    return model.strip()


def make_target(name: str, url: str, plain_url: str | None = None, engine: str | None = None,
                model: str | None = None, labels: tuple[str, str] | None = None) -> EngineTarget:
    """An EngineTarget with every part checked (URLs are http(s)://host[:port][/prefix]); ArenaError naming the bad
    part by `labels` (the URL's and the plain URL's; default "--endpoint NAME" and "--endpoint NAME plain="). The
    command line calls it with the name "endpoint" and its flags' names."""
    labels = labels or (f"--endpoint {name}", f"--endpoint {name} plain=")
    for one, label in ((url, labels[0]), (plain_url, labels[1])):
        if one:
            Endpoint(one, label).parts()
    return EngineTarget(name, url, plain_url or None, check_engine(engine, labels[0]),
                        check_model_name(model, labels[0]))


def parse_endpoint(text: str) -> EngineTarget:
    """``NAME=URL[,plain=URL2][,engine=E][,model=M]`` -> EngineTarget; ArenaError (one line) for anything else."""
    name, sep, rest = text.partition("=")
    if not sep or not _TARGET_NAME.match(name):
        raise ArenaError(msg("--endpoint: expected NAME=URL[,plain=URL2][,engine=llama.cpp|vllm|sglang][,model=NAME] with a "
                             "NAME of letters, digits, '.', '-' or '_'; got {text}", text=repr(text)))
    url, *pairs = rest.split(",")
    options: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if key not in _OPTIONS or not eq or key in options:
            raise ArenaError(msg("--endpoint {name}: expected "
                                 "NAME=URL[,plain=URL2][,engine=llama.cpp|vllm|sglang][,model=NAME]; {pair} is not one of "
                                 "plain=, engine=, model= (each once)", name=name, pair=repr(pair)))
        if not value:
            raise ArenaError(msg("--endpoint {name}: give a value after '{key}='", name=name, key=key))
        options[key] = value
    if not url:
        raise ArenaError(msg("--endpoint {name}: give a URL after '{name}='", name=name))
    return make_target(name, url, options.get("plain"), options.get("engine"), options.get("model"))


def find_target(name: str, targets: Sequence[EngineTarget]) -> EngineTarget:
    """The target the operator offers under `name`; ArenaError listing the names for any other (a visitor never
    gives a URL, only one of these names)."""
    for target in targets:
        if target.name == name:
            return target
    known = ", ".join(t.name for t in targets) or "none (start the page with --endpoint NAME=URL)"
    raise ArenaError(msg("Unknown engine {shown}. Known engines: {known}.", shown=shown(name), known=known))
