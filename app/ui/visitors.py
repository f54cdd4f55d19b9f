"""One generation job per visitor, refused with one line when it joins the queue (docs/DESIGN.md §4.5). The gradio
``validator`` (run by ``Queue.push``) reads gradio's own queue, so a job that ends in any way leaves nothing to
release; a visitor is the connection's address, or the one a trusted proxy names (:func:`visitor_key`), and an MCP
tool call's job is its caller's (app/ui/mcp.py), so page, API and MCP jobs share the one slot."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import gradio as gr

from ..core.words import t
from . import popups

log = logging.getLogger("app.ui")

#: The concurrency group every generation event joins (app/ui/page.py).
GENERATION = "generation"
#: The refusals' keys in the tables of words (app/core/words/*/limits.json): a second job, a full queue.
BUSY, FULL = "limits.busy", "limits.queue_full"


def visitor_key(request: Any) -> str:
    """The visitor's address for a ``gr.Request`` or a starlette request: the connection's own address, which uvicorn
    has already replaced by the client that ``X-Forwarded-For`` names only when the connection came from a proxy the
    operator trusts (``--forwarded-allow-ips``, app/ui/config.py), and which app/ui/mcp.py sets to the MCP caller for
    the job an MCP tool call queues. A header a client writes itself decides nothing."""
    client = getattr(request, "client", None)
    return str(getattr(client, "host", None) or "unknown")


def _events(blocks: gr.Blocks) -> list[Any]:
    """Every event of the generation group that gradio's queue holds: waiting, and running in a worker."""
    queue = blocks._queue
    waiting = [e for q in queue.event_queue_per_concurrency_id.values() for e in q.queue]
    running = [e for job in queue.active_jobs if job for e in job]
    return [e for e in waiting + running if getattr(e.fn, "concurrency_id", None) == GENERATION and e.alive]


class Admissions:
    """The join-time check for one page: one generation job per visitor, and the queue's size.

    Validators of events that join at the same moment run concurrently, and an admitted event reaches gradio's queue
    only a moment after its validator returns (gradio checks ``max_size`` before the validator runs, so a burst of
    joins passed it together). So each admission is also held here, under a lock, and counts against the visitor and
    the queue until gradio's own lists show its request (or :data:`HOLD` seconds pass, should gradio drop it).
    """

    HOLD = 0.25
    #: How long a join waits for the visitor's previous job to leave gradio's lists before it is refused: gradio sends
    #: a job's result a moment before it removes the job, and a client looping over prompts asks again at once.
    GRACE = 0.5

    def __init__(self, blocks: gr.Blocks):
        self.blocks = blocks
        self.lock = threading.Lock()
        self.held: list[tuple[float, str, Any]] = []  # (when, visitor, the join's HTTP request)

    def admit(self, key: str, request: Any) -> None:
        """Record a join from visitor `key` (its HTTP request: `request`), or raise gr.Error (one line)."""
        deadline = time.monotonic() + self.GRACE
        while not self._try(key, request):
            if time.monotonic() >= deadline:
                log.info("refused a second job from one visitor")
                raise popups.error(t(BUSY))
            time.sleep(0.05)

    def _try(self, key: str, request: Any) -> bool:
        with self.lock:
            now, events = time.monotonic(), _events(self.blocks)
            seen = {id(e.request) for e in events}
            self.held = [h for h in self.held if now - h[0] < self.HOLD and id(h[2]) not in seen]
            if any(e.request is not None and visitor_key(e.request) == key for e in events) or any(
                    k == key for _, k, _ in self.held):
                return False
            queue = self.blocks._queue
            if queue.max_size is not None and len(queue) + len(self.held) >= queue.max_size:
                raise popups.error(t(FULL, size=queue.max_size))
            self.held.append((now, key, request))
            return True


def guard_generation(blocks: gr.Blocks) -> int:
    """Give every generation event of `blocks` the join-time check of :class:`Admissions`; returns how many."""
    admissions = Admissions(blocks)

    def one_job_per_visitor(request: gr.Request, *inputs: Any) -> list:
        if request is not None:
            admissions.admit(visitor_key(request), getattr(request, "request", None))
        return [None] * len(inputs)

    generation = [fn for fn in blocks.fns.values() if fn.concurrency_id == GENERATION]
    for fn in generation:
        fn.validator = one_job_per_visitor
    return len(generation)
