"""The Hugging Face hub as the loader sees it (docs/DESIGN.md §4.5, §6): where it is (huggingface_hub's own configured
endpoint), whether it answers, what a repository's weights weigh, and one line that says what to do for each way a
hub load fails. Downloads with progress and Stop are in :mod:`app.core.download`."""

from __future__ import annotations

import functools
import logging
import os
import re
import socket
from typing import Any
from urllib.parse import urlsplit

from .errors import ArenaError
from .presets import load_presets
from .words import msg

log = logging.getLogger(__name__)

#: Seconds the metadata request (model info) waits for the hub; downloads use huggingface_hub's own timeouts
#: (HF_HUB_DOWNLOAD_TIMEOUT, HF_HUB_ETAG_TIMEOUT: 10 s each by default).
HUB_TIMEOUT_S = 10.0
#: Seconds the reachability probe waits for a TCP connection.
PROBE_TIMEOUT_S = 3.0
#: Weight files from_pretrained reads, in its order of preference: a single file or its numbered shards.
_WEIGHT_NAMES = (re.compile(r"^model(-\d+-of-\d+)?\.safetensors$"), re.compile(r"^pytorch_model(-\d+-of-\d+)?\.bin$"))
#: Any top-level weight file, for repositories that name their shards otherwise (counted, never under-counted).
WEIGHT_SUFFIXES = (".safetensors", ".bin")


def endpoint() -> str:
    """The hub URL huggingface_hub itself uses (HF_ENDPOINT when set, read by huggingface_hub.constants)."""
    from huggingface_hub import constants

    return constants.ENDPOINT.rstrip("/")


def endpoint_address(url: str) -> tuple[str, int]:
    """(host, port) of an endpoint URL: its explicit port, else 443 for https and 80 for http."""
    parts = urlsplit(url)
    host = parts.hostname or "huggingface.co"
    return host, parts.port or (80 if parts.scheme == "http" else 443)


@functools.lru_cache(maxsize=1)
def hub_reachable() -> bool:
    """Whether the hub at :func:`endpoint` accepts a connection (checked once per process; HF_HUB_OFFLINE=1 forces
    no). When it does not, hub loads read only the local cache, so nothing can download (and the size cap, which
    needs the hub, is not needed); when it does, every load checks the size first (app/core/download.py)."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        return False
    try:
        socket.create_connection(endpoint_address(endpoint()), timeout=PROBE_TIMEOUT_S).close()
        return True
    except OSError:
        return False


def repo_info(repo_id: str, revision: str | None = None) -> Any:
    """huggingface_hub's ModelInfo of `repo_id` at `revision`, with file sizes; raises what huggingface_hub raises."""
    from huggingface_hub import HfApi

    return HfApi(endpoint=endpoint()).model_info(repo_id, revision=revision, files_metadata=True,
                                                 timeout=HUB_TIMEOUT_S)


def weight_files(info: Any) -> list[tuple[str, int]]:
    """(file name, bytes) of the weights from_pretrained would download, from a ModelInfo's file metadata: its
    ``model*.safetensors`` files, else ``pytorch_model*.bin``, else every top-level file of the first suffix found."""
    files = [(f.rfilename, f.size or 0) for f in info.siblings or () if "/" not in f.rfilename]
    for pattern in _WEIGHT_NAMES:
        chosen = [(name, size) for name, size in files if pattern.match(name)]
        if chosen:
            return chosen
    for suffix in WEIGHT_SUFFIXES:
        chosen = [(name, size) for name, size in files if name.endswith(suffix)]
        if chosen:
            return chosen
    return []


def check_size(repo_id: str, files: list[tuple[str, int]], max_bytes: int | None) -> None:
    """ArenaError when the weights in `files` exceed `max_bytes` (None: no cap); called before any download."""
    size = sum(s for _, s in files)
    if max_bytes is not None and size > max_bytes:
        raise ArenaError(msg("'{repo_id}' has {size} GB of weights; this server loads models of at most {max_bytes} GB (the "
                             "operator sets this with --max-model-gb).", repo_id=repo_id, size=f"{size / 1e9:.1f}",
                             max_bytes=f"{max_bytes / 1e9:.1f}"))


def _chain(exc: BaseException | None) -> list[BaseException]:
    """`exc` and its causes (transformers wraps huggingface_hub's errors in OSError), outermost first."""
    seen: list[BaseException] = []
    while exc is not None and exc not in seen and len(seen) < 16:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def _named(exc: BaseException, *names: str) -> bool:
    """Whether `exc` is an instance of a class with one of these names (httpx's network errors, whichever copy of
    httpx huggingface_hub uses)."""
    return any(c.__name__ in names for c in type(exc).__mro__)


def transient(exc: BaseException) -> bool:
    """Whether `exc` (or a cause) says the hub is down, slow or cut off, rather than that the model is not there:
    a local copy may then still load."""
    for e in _chain(exc):
        status = getattr(getattr(e, "response", None), "status_code", None)
        if (isinstance(status, int) and status >= 500) or _named(e, "TimeoutException", "TransportError"):
            return True
    return False


def hub_error(repo_id: str, exc: BaseException, revision: str | None = None) -> ArenaError:
    """The one line a user sees when loading `repo_id` from the hub failed with `exc`: what happened and what to do."""
    from huggingface_hub import errors

    log.info("could not load %r from the hub: %s", repo_id, " <- ".join(type(e).__name__ for e in _chain(exc)))
    for e in _chain(exc):
        if isinstance(e, ArenaError):
            return e
        if isinstance(e, errors.GatedRepoError):
            return gated(repo_id, getattr(e.response, "status_code", 401))
        if isinstance(e, errors.RevisionNotFoundError):
            return ArenaError(msg("'{repo_id}' has no revision '{revision}' on the Hugging Face hub: name a branch, a tag or "
                                  "a commit sha that exists (the revision field or --revision).", repo_id=repo_id,
                                  revision=revision or 'main'))
        if isinstance(e, errors.RepositoryNotFoundError):
            return unknown_model(repo_id)
        status = getattr(getattr(e, "response", None), "status_code", None)
        if isinstance(status, int) and status >= 500:
            return ArenaError(msg("The Hugging Face hub at {endpoint} answered {status} (a server error) for '{repo_id}': "
                                  "retry in a few minutes; models already in the local cache still load.", endpoint=endpoint(),
                                  status=status, repo_id=repo_id))
        if _named(e, "TimeoutException"):
            return ArenaError(msg("The Hugging Face hub at {endpoint} did not answer in time for '{repo_id}': retry later, or "
                                  "allow more seconds with HF_HUB_DOWNLOAD_TIMEOUT and HF_HUB_ETAG_TIMEOUT.",
                                  endpoint=endpoint(), repo_id=repo_id))
        if _named(e, "TransportError"):
            return ArenaError(msg("The download of '{repo_id}' from the Hugging Face hub was cut off (the connection "
                                  "dropped): the files already downloaded stay in the local cache; run again to fetch the "
                                  "rest.", repo_id=repo_id))
    return unknown_model(repo_id)


def unknown_model(spec: str) -> ArenaError:
    """The one message for an id that no installed package, allowed folder or the hub provides."""
    try:
        offline = [p.id for p in load_presets().values() if p.runs_offline]
    except ArenaError:
        offline = []
    return ArenaError(msg("Could not load '{spec}': not an installed package model or local folder, and the Hugging Face hub "
                          "could not provide it (no network, or a misspelled id). Offline presets here: {offline}.", spec=spec,
                          offline=', '.join(offline) or 'none'))


def gated(repo_id: str, status: int) -> ArenaError:
    """The line for a gated repository: 401 (no token sent) or 403 (a token without access)."""
    if status == 403:
        return ArenaError(msg("'{repo_id}' is a gated model and the Hugging Face token this server uses has no access to it: "
                              "accept its terms at {endpoint}/{repo_id} with the token's account, or set HF_TOKEN to a token "
                              "that has access.", repo_id=repo_id, endpoint=endpoint()))
    return ArenaError(msg("'{repo_id}' is a gated model: accept its terms at {endpoint}/{repo_id}, then give this server a "
                          "Hugging Face token (set the HF_TOKEN environment variable, or run `hf auth login`) and load it "
                          "again.", repo_id=repo_id, endpoint=endpoint()))
