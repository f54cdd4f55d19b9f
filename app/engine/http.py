"""The HTTP side of an engine race: one JSON GET, one streamed POST, each with timeouts, a token cap and a stop event
that closes the connection (so the server stops generating; docs/DESIGN.md §4.7). Every failure is one ArenaError
line naming what went wrong: the engine down, refusing, dying mid-stream, too slow, malformed or endless output.

Standard library only (``http.client``), so the engine floor knows nothing of Gradio.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

from ..core.errors import ArenaError, StoppedError
from ..core.words import msg

#: The longest error body quoted in a message (characters).
MAX_QUOTED = 160
#: What a stream yields for its end marker (``data: [DONE]``, OpenAI-style servers); None marks the end of the body.
DONE = "[DONE]"
#: The largest single SSE line or JSON body read (bytes): more is malformed output, not a token.
MAX_LINE_BYTES = 4_000_000


@dataclass(frozen=True)
class Timeouts:
    """connect: seconds to open the connection; read: the longest silence between two chunks (seconds) before the
    engine counts as too slow; total: the longest a whole request may take (seconds)."""

    connect: float = 5.0
    read: float = 60.0
    total: float = 600.0


@dataclass(frozen=True)
class Endpoint:
    """A server's base URL split into its parts. name: how messages call it (e.g. "assisted endpoint"); address: how
    messages show where it is (None: its URL; the page shows its engine's name instead, so visitors never see the
    operator's addresses)."""

    url: str
    name: str = "engine"
    address: str | None = None

    @property
    def shown(self) -> str:
        """Where it is, as a message says it."""
        return self.address or self.url

    def parts(self) -> tuple[str, str, int, str]:
        """(scheme, host, port, path prefix); ArenaError for a URL that is not http(s)://host[:port][/prefix]."""
        split = urlsplit(self.url)
        if split.scheme not in ("http", "https") or not split.hostname:
            raise ArenaError(msg("{name}: {url} is not an http:// or https:// URL.", name=self.name, url=repr(self.url)))
        try:
            port = split.port or (443 if split.scheme == "https" else 80)
        except ValueError:
            raise ArenaError(msg("{name}: {url} has a bad port.", name=self.name, url=repr(self.url))) from None
        return split.scheme, split.hostname, port, split.path.rstrip("/")


def _connect(endpoint: Endpoint, timeouts: Timeouts) -> tuple[http.client.HTTPConnection, str]:
    scheme, host, port, prefix = endpoint.parts()
    kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    return kind(host, port, timeout=timeouts.connect), prefix


def error_message(data: Any) -> str:
    """The message of an engine's parsed error object (OpenAI-style ``error.message`` or ``message``), on one line
    and shortened to MAX_QUOTED characters."""
    error = data.get("error", data) if isinstance(data, dict) else data
    text = str(error.get("message", error)) if isinstance(error, dict) else str(error)
    text = " ".join(text.split())
    return text[:MAX_QUOTED] + ("..." if len(text) > MAX_QUOTED else "")


def _quote(body: bytes) -> str:
    """The error message inside an engine's error body (JSON: :func:`error_message`; else the text), shortened."""
    text = body.decode("utf-8", "replace")
    try:
        return error_message(json.loads(text))
    except ValueError:
        return error_message(text)


def refused(endpoint: Endpoint, status: int, body: bytes) -> ArenaError:
    """The one line for an HTTP error answer; a 404 that names a model means a wrong model name."""
    quoted = _quote(body)
    if status == 404 and "model" in quoted.lower():
        return ArenaError(msg("{name} at {shown} does not serve that model (HTTP 404: {quoted}); check the model name.",
                              name=endpoint.name, shown=endpoint.shown, quoted=quoted))
    return ArenaError(msg("{name} at {shown} refused the request: HTTP {status}: {quoted}", name=endpoint.name,
                          shown=endpoint.shown, status=status, quoted=quoted or 'no message'))


def _down(endpoint: Endpoint, exc: BaseException) -> ArenaError:
    return ArenaError(msg("{name} is down: nothing answers at {shown} ({type}: {exc}); start the server or check the URL.",
                          name=endpoint.name, shown=endpoint.shown, type=type(exc).__name__, exc=exc))


def get_json(endpoint: Endpoint, path: str, timeouts: Timeouts = Timeouts()) -> Any:
    """GET `path` and parse its JSON; ArenaError (one line) when the engine is down, refuses, is slow or answers
    something that is not JSON."""
    return request_json(endpoint, "GET", path, None, timeouts)


def request_json(endpoint: Endpoint, method: str, path: str, body: dict | None,
                 timeouts: Timeouts = Timeouts()) -> Any:
    """One plain (not streamed) JSON request: `method` `path` with `body` (None: no body) -> the parsed answer."""
    conn, prefix = _connect(endpoint, timeouts)
    headers = {"Accept": "application/json", "Content-Type": "application/json"}
    try:
        conn.request(method, prefix + path, body=None if body is None else json.dumps(body).encode(), headers=headers)
        conn.sock.settimeout(timeouts.read)
        response = conn.getresponse()
        data = response.read(MAX_LINE_BYTES + 1)
    except (socket.timeout, TimeoutError):
        raise ArenaError(msg("{name} at {shown} is too slow: no answer to {method} {path} within {read} s.", name=endpoint.name,
                             shown=endpoint.shown, method=method, path=path, read=f"{timeouts.read:g}")) from None
    except (ConnectionError, OSError, http.client.HTTPException) as exc:
        raise _down(endpoint, exc) from None
    finally:
        conn.close()
    if response.status >= 400:
        raise refused(endpoint, response.status, data)
    try:
        return json.loads(data)
    except ValueError:
        raise ArenaError(msg("{name} at {shown} sent malformed output: {method} {path} is not JSON.", name=endpoint.name,
                             shown=endpoint.shown, method=method, path=path)) from None


class _Closer:
    """Closes a connection's socket as soon as the stop event is set, from a small watcher thread that ends when the
    request ends (``done``) — so a read blocked on a silent engine returns at once and the server sees the client
    go away."""

    def __init__(self, conn: http.client.HTTPConnection, stop: threading.Event | None):
        self.conn, self.stop, self.done = conn, stop, threading.Event()
        self.sock: socket.socket | None = None  # kept: http.client drops conn.sock once a response will close
        self.thread = None
        if stop is not None:
            self.thread = threading.Thread(target=self._watch, name="engine-stop-watch", daemon=True)
            self.thread.start()

    def _watch(self) -> None:
        while not self.done.is_set():
            if self.stop.wait(0.05):
                self.close()
                return

    def close(self) -> None:
        """Shut the socket down (thread-safe: the reading thread then sees the end of the stream); the connection
        object itself is closed by :meth:`finish` in the reading thread, since http.client is not thread-safe."""
        sock = self.sock or self.conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def finish(self) -> None:
        self.done.set()
        self.close()
        self.conn.close()
        if self.thread is not None:
            self.thread.join(timeout=1.0)


def _events(response: http.client.HTTPResponse, endpoint: Endpoint) -> Iterator[Any]:
    """Parsed ``data:`` payloads of a server-sent-event stream ("[DONE]" ends it); None at the end of the body."""
    while True:
        line = response.readline(MAX_LINE_BYTES + 1)
        if not line:
            yield None
            return
        if len(line) > MAX_LINE_BYTES:
            raise ArenaError(msg("{name} at {shown} sent malformed output: a line over {MAX_LINE_BYTES} bytes.",
                                 name=endpoint.name, shown=endpoint.shown, MAX_LINE_BYTES=MAX_LINE_BYTES))
        text = line.decode("utf-8", "replace").strip()
        if not text.startswith("data:"):
            continue  # blank separators, comments and pings
        payload = text[5:].strip()
        if payload == DONE:
            yield DONE
            return
        try:
            yield json.loads(payload)
        except ValueError:
            raise ArenaError(msg("{name} at {shown} sent malformed output: a stream chunk is not JSON ({payload}).",
                                 name=endpoint.name, shown=endpoint.shown, payload=repr(payload[:60]))) from None


def stream_post(endpoint: Endpoint, path: str, body: dict, timeouts: Timeouts = Timeouts(),
                stop: threading.Event | None = None,
                on_start: Callable[[float], None] | None = None) -> Iterator[tuple[float, Any]]:
    """POST `body` as JSON to `path` and yield (seconds since the request was sent, parsed chunk) for every
    server-sent event; (t, DONE) for an end marker, (t, None) at the end of the body. A set `stop` closes the
    connection and raises StoppedError; silence longer than timeouts.read or a request longer than timeouts.total is
    "too slow"; a body that ends without the end marker is the caller's to judge (see
    :func:`app.engine.llamacpp.stream_side`). on_start: called with the ``time.perf_counter()`` the chunks' times count
    from, as the request is sent. Close the generator (``contextlib.closing``) to close the connection."""
    conn, prefix = _connect(endpoint, timeouts)
    closer = _Closer(conn, stop)
    start = time.perf_counter()
    if on_start is not None:
        on_start(start)
    try:
        try:
            conn.request("POST", prefix + path, body=json.dumps(body).encode(),
                         headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
            closer.sock = conn.sock
            if stop is not None and stop.is_set():
                closer.close()
            conn.sock.settimeout(timeouts.read)
            response = conn.getresponse()
        except (ConnectionError, OSError, http.client.HTTPException) as exc:
            if stop is not None and stop.is_set():
                raise StoppedError(msg("{name}: stopped", name=endpoint.name)) from None
            if isinstance(exc, (socket.timeout, TimeoutError)):
                raise ArenaError(msg("{name} at {shown} is too slow: no answer within {read} s.", name=endpoint.name,
                                     shown=endpoint.shown, read=f"{timeouts.read:g}")) from None
            raise _down(endpoint, exc) from None
        if response.status >= 400:
            raise refused(endpoint, response.status, response.read(MAX_LINE_BYTES))
        yield from _timed(_events(response, endpoint), start, endpoint, timeouts, stop)
    finally:
        closer.finish()


def _timed(events: Iterator[Any], start: float, endpoint: Endpoint, timeouts: Timeouts,
           stop: threading.Event | None) -> Iterator[tuple[float, Any]]:
    """`events` stamped with seconds since `start`; maps a read timeout, a dropped connection and a stop to one line."""
    while True:
        try:
            event = next(events)
        except StopIteration:
            return
        except (socket.timeout, TimeoutError):
            raise ArenaError(msg("{name} at {shown} is too slow: nothing for {read} s in the middle of the stream.",
                                 name=endpoint.name, shown=endpoint.shown, read=f"{timeouts.read:g}")) from None
        except (ConnectionError, OSError, http.client.HTTPException, ValueError) as exc:
            if stop is not None and stop.is_set():
                raise StoppedError(msg("{name}: stopped", name=endpoint.name)) from None
            raise ArenaError(msg("{name} at {shown} died mid-stream ({type}).", name=endpoint.name, shown=endpoint.shown,
                                 type=type(exc).__name__)) from None
        if stop is not None and stop.is_set():
            raise StoppedError(msg("{name}: stopped", name=endpoint.name))
        now = time.perf_counter() - start
        if now > timeouts.total:
            raise ArenaError(msg("{name} at {shown} is too slow: the request took over {total} s.", name=endpoint.name,
                                 shown=endpoint.shown, total=f"{timeouts.total:g}"))
        yield now, event
        if event is None or event is DONE:
            return
