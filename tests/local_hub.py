"""A local stand-in for the Hugging Face hub (docs/DESIGN.md §6): a threaded HTTP server on 127.0.0.1 that answers
the requests huggingface_hub 2.x makes, as its own code makes them, so the app's hub path runs offline.

Answered (huggingface_hub ``file_download.py`` / ``hf_api.py`` / ``utils/_http.py``):

* ``HEAD|GET /{repo}/resolve/{rev}/{path}``: ``X-Repo-Commit``, ``ETag``, ``Content-Length``, ``Accept-Ranges``;
  ``Range: bytes=N-`` answers 206 with ``Content-Range`` (http_get resumes a dropped download that way). Weight
  files (``.safetensors``, ``.bin``) redirect (302) to a "CDN" on ``localhost`` (another host name of the same
  loopback server) with ``X-Linked-Size`` / ``X-Linked-Etag``, as the hub does for LFS files.
* ``GET /api/models/{repo}[/revision/{rev}]``: ``sha`` and ``siblings`` (sizes only with ``blobs=True``, as the hub).
* ``GET /api/models/{repo}/tree/{rev}[/{dir}]``: the files and folders directly under a folder.
* The hub's failure answers: 404 with ``X-Error-Code`` ``RepoNotFound`` / ``RevisionNotFound`` / ``EntryNotFound``;
  401 (no token) or 403 (a wrong one) with ``X-Error-Code: GatedRepo``; 500; a connection dropped mid-file; a slow
  answer. Which repository fails how is set on :class:`Faults` by the test.

No pytest imports: a script can start one too (``with LocalHub() as hub: ...``).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

#: Files the hub stores in LFS (served through the redirect, like the real hub's CDN).
LFS_SUFFIXES = (".safetensors", ".bin", ".gguf")


@dataclass
class Faults:
    """How the hub misbehaves, per repository id. drops: file path -> times left to cut the connection after half
    the file; slow: seconds every answer about these repositories waits before its headers; rate: bytes per second
    the CDN sends their files at (a slow link)."""

    gated: set[str] = field(default_factory=set)
    broken: set[str] = field(default_factory=set)
    drops: dict[str, int] = field(default_factory=dict)
    slow: dict[str, float] = field(default_factory=dict)
    rate: dict[str, float] = field(default_factory=dict)


@dataclass
class Repo:
    """One model repository: commits (sha -> {path: bytes}) and refs (branch or tag -> sha)."""

    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)

    def resolve(self, rev: str) -> str | None:
        """The commit sha a revision names (a branch, a tag or a full sha), else None."""
        return self.refs.get(rev) or (rev if rev in self.commits else None)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class LocalHub:
    """The server and its repositories. ``url``: what HF_ENDPOINT is set to. ``token``: the one token that opens
    gated repositories. ``requests``: (method, path, Range header) of every request answered, for assertions."""

    token = "hf_localhubtoken"

    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.faults = Faults()
        self.requests: list[tuple[str, str]] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.hub = self  # type: ignore[attr-defined]
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="local-hub", daemon=True)

    def __enter__(self) -> "LocalHub":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_folder(self, repo_id: str, folder: str | Path, ref: str = "main", tag: str | None = None,
                   extra: dict[str, bytes] | None = None) -> str:
        """Publish every file under `folder` (plus `extra` files) as a new commit of `repo_id` on branch `ref`
        (and `tag`); returns the commit sha (40 hex digits, derived from the contents)."""
        root = Path(folder)
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
        files.update(extra or {})
        sha = hashlib.sha1(repo_id.encode() + b"".join(_git_sha(d).encode() for d in files.values())).hexdigest()
        repo = self.repos.setdefault(repo_id, Repo())
        repo.commits[sha] = files
        repo.refs[ref] = sha
        if tag:
            repo.refs[tag] = sha
        return sha

    def reset(self) -> None:
        """No faults and an empty request log (between tests)."""
        self.faults = Faults()
        self.requests.clear()

    def find(self, parts: list[str]) -> tuple[str | None, list[str]]:
        """Split URL path parts into (a known repository id, the rest); (None, parts) when no repository matches."""
        for n in (2, 1):
            if len(parts) >= n and "/".join(parts[:n]) in self.repos:
                return "/".join(parts[:n]), parts[n:]
        return None, parts


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client that hangs up (Stop, a timeout) is not an error of the hub; anything else is printed."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hub: LocalHub

    def log_message(self, *args) -> None:  # quiet: the request log is hub.requests
        pass

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def do_GET(self) -> None:
        self._answer(head=False)

    # ----- routing ------------------------------------------------------------------------------------------------
    def _answer(self, head: bool) -> None:
        self.hub = self.server.hub  # type: ignore[attr-defined]
        url = urlsplit(self.path)
        self.hub.requests.append((self.command, url.path, self.headers.get("Range", "")))
        parts = [unquote(p) for p in url.path.strip("/").split("/")]
        if parts[0] == "cdn":
            return self._cdn(parts[1:], head)
        api = parts[:2] == ["api", "models"]
        repo_id, rest = self.hub.find(parts[2:] if api else parts)
        if repo_id is None:
            return self._error(404, "RepoNotFound", "Repository not found")
        if (delay := self.hub.faults.slow.get(repo_id)) is not None:
            time.sleep(delay)
        if repo_id in self.hub.faults.broken:
            return self._error(500, None, "Internal Error - We're working hard to fix this as soon as possible!")
        if repo_id in self.hub.faults.gated and (denied := self._gate(repo_id)):
            return self._error(denied, "GatedRepo", f"Access to model {repo_id} is restricted. You must have "
                                                    "access to it and be authenticated to access it. Please log in.")
        repo = self.hub.repos[repo_id]
        if api:
            return self._api(repo_id, repo, rest, parse_qs(url.query))
        if len(rest) >= 3 and rest[0] == "resolve":
            return self._resolve(repo_id, repo, rest[1], "/".join(rest[2:]), head)
        self._error(404, None, "Not found")

    def _gate(self, repo_id: str) -> int:
        """0 when the request carries the hub's token; else 401 without a token, 403 with another one."""
        auth = self.headers.get("Authorization", "")
        if auth == f"Bearer {self.hub.token}":
            return 0
        return 403 if auth else 401

    def _api(self, repo_id: str, repo: Repo, rest: list[str], query: dict) -> None:
        rev, folder, tree = "main", "", False
        if rest[:1] == ["revision"] and len(rest) >= 2:
            rev = rest[1]
        elif rest[:1] == ["tree"] and len(rest) >= 2:
            rev, folder, tree = rest[1], "/".join(rest[2:]), True
        sha = repo.resolve(rev)
        if sha is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
        files = repo.commits[sha]
        if tree:
            return self._tree(files, folder, sha)
        blobs = query.get("blobs") == ["true"] or query.get("blobs") == ["True"]
        siblings = [{"rfilename": p, **({"size": len(d), "blobId": _git_sha(d)} if blobs else {})}
                    for p, d in files.items()]
        self._json({"id": repo_id, "modelId": repo_id, "sha": sha, "private": False,
                    "gated": "auto" if repo_id in self.hub.faults.gated else False, "disabled": False,
                    "tags": [], "siblings": siblings})

    def _tree(self, files: dict[str, bytes], folder: str, sha: str) -> None:
        prefix = f"{folder}/" if folder else ""
        below = [p[len(prefix):] for p in files if p.startswith(prefix)]
        if folder and not below:
            return self._error(404, "EntryNotFound", f"{folder} does not exist on \"{sha}\"")
        entries, dirs = [], set()
        for name in sorted(below):
            head, _, tail = name.partition("/")
            if tail:
                dirs.add(head)
            else:
                data = files[prefix + name]
                entries.append({"type": "file", "path": prefix + name, "size": len(data), "oid": _git_sha(data)})
        entries += [{"type": "directory", "path": prefix + d, "size": 0, "oid": "0" * 40} for d in sorted(dirs)]
        self._json(entries)

    def _resolve(self, repo_id: str, repo: Repo, rev: str, path: str, head: bool) -> None:
        sha = repo.resolve(rev)
        if sha is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
        data = repo.commits[sha].get(path)
        if data is None:
            return self._error(404, "EntryNotFound", "Entry not found", {"X-Repo-Commit": sha})
        if path.endswith(LFS_SUFFIXES):
            digest = _sha256(data)
            location = f"http://localhost:{self.hub.port}/cdn/{repo_id}/{sha}/{path}"
            return self._send(302, b"", {"Location": location, "X-Repo-Commit": sha, "X-Linked-Size": str(len(data)),
                                         "X-Linked-Etag": f'"{digest}"', "ETag": f'"{_git_sha(data)}"'}, head)
        self._file(data, path, {"X-Repo-Commit": sha, "ETag": f'"{_git_sha(data)}"'}, head)

    def _cdn(self, parts: list[str], head: bool) -> None:
        repo_id, rest = self.hub.find(parts)
        data = self.hub.repos[repo_id].commits.get(rest[0], {}).get("/".join(rest[1:])) if repo_id and rest else None
        if data is None:
            return self._send(404, b"NoSuchKey", {}, head)
        if (delay := self.hub.faults.slow.get(repo_id)) is not None:
            time.sleep(delay)
        self._file(data, "/".join(rest[1:]), {"ETag": f'"{_sha256(data)}"'}, head, self.hub.faults.rate.get(repo_id))

    # ----- answers ------------------------------------------------------------------------------------------------
    def _file(self, data: bytes, path: str, headers: dict[str, str], head: bool, rate: float | None = None) -> None:
        """A file's bytes, from a ``Range: bytes=N-`` offset when asked; dropped after half when a fault says so;
        sent at `rate` bytes per second when given."""
        start = 0
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
        if match and int(match.group(1)) < len(data):
            start = int(match.group(1))
            headers = {**headers, "Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"}
        status, body = (206 if start else 200), data[start:]
        drops = self.hub.faults.drops
        if not head and drops.get(path, 0) > 0 and len(body) > 1:
            drops[path] -= 1
            self._headers(status, {**headers, "Accept-Ranges": "bytes", "Content-Length": str(len(body))})
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if rate and not head:
            self._headers(status, {**headers, "Accept-Ranges": "bytes", "Content-Length": str(len(body))})
            piece = max(1, int(rate / 10))
            for at in range(0, len(body), piece):  # bounded: len(body) / piece writes
                self.wfile.write(body[at:at + piece])
                time.sleep(0.1)
            return
        self._send(status, body, {**headers, "Accept-Ranges": "bytes"}, head)

    def _json(self, obj) -> None:
        self._send(200, json.dumps(obj).encode(), {"Content-Type": "application/json"}, False)

    def _error(self, status: int, code: str | None, message: str, headers: dict[str, str] | None = None) -> None:
        extra = {"X-Error-Message": message, **({"X-Error-Code": code} if code else {}), **(headers or {})}
        self._send(status, json.dumps({"error": message}).encode(), {"Content-Type": "application/json", **extra},
                   self.command == "HEAD")

    def _headers(self, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

    def _send(self, status: int, body: bytes, headers: dict[str, str], head: bool) -> None:
        self._headers(status, {**headers, "Content-Length": str(len(body))})
        if not head:
            self.wfile.write(body)


def hub_environment(url: str, home: str | Path) -> dict[str, str]:
    """The environment that points huggingface_hub (and so transformers and the app) at a local hub: `url` as
    HF_ENDPOINT, no Xet, a fresh HF_HOME. A new process reads it at import; see :func:`hub_constants` for this one."""
    return {"HF_ENDPOINT": url, "HF_HUB_DISABLE_XET": "1", "HF_HOME": str(home), "HF_HUB_CACHE": str(Path(home) / "hub"),
            "HF_HUB_DISABLE_TELEMETRY": "1"}


def hub_constants(url: str, home: str | Path) -> dict[str, object]:
    """huggingface_hub.constants values to set in a process that imported huggingface_hub before the environment
    pointed at the local hub (its constants are read at import; its functions read them at call time)."""
    home = Path(home)
    return {"ENDPOINT": url, "HUGGINGFACE_CO_URL_TEMPLATE": url + "/{repo_id}/resolve/{revision}/{filename}",
            "HF_HOME": str(home), "HF_HUB_CACHE": str(home / "hub"), "HF_TOKEN_PATH": str(home / "token"),
            "HF_STORED_TOKENS_PATH": str(home / "stored_tokens"), "HF_HUB_DISABLE_XET": True, "HF_HUB_OFFLINE": False,
            "HF_HUB_DISABLE_TELEMETRY": True}
