"""A small local HTTP server that answers like llama-server, vLLM or SGLang (their field names: app/engine/), with
faults on demand: refusing, dying mid-stream, slow, malformed or endless output, no speculation."""

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


def counters(spec: bool) -> list[tuple[int, int]]:
    """The cumulative (draft_n, draft_n_accepted) sent with each token of IDS."""
    out, drafted, accepted, ends = [], 0, 0, {}
    for start, d, a in STEPS if spec else []:
        ends[start] = (d, a)
    for index in range(len(IDS)):
        if index in ends:
            drafted, accepted = drafted + ends[index][0], accepted + ends[index][1]
        out.append((drafted, accepted))
    return out


class Fake:
    """One fake engine on 127.0.0.1:port. mode: "ok", "http500", "drop", "slow", "malformed", "endless", "model404";
    spec: whether it drafts; slots: whether it answers /slots."""

    def __init__(self, spec: bool = True, mode: str = "ok", slots: bool = True):
        self.spec, self.mode, self.slots = spec, mode, slots
        self.predicted_ms = PREDICTED_MS[spec]  # the decode time the final timings report (llama.cpp's predicted_ms)
        self.vllm_shape = "choice"  # or "metrics": the two documented shapes of vLLM's per-request stats
        self.requests: list[str] = []
        fake = self

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
                if fake.mode == "http500":
                    return self.reply(500, {"error": {"code": 500, "message": "the fake broke"}})
                if fake.mode == "model404":
                    return self.reply(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
                if self.path == "/apply-template":
                    return self.reply(200, {"prompt": "<user>" + body["messages"][0]["content"] + "<assistant>"})
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                stream = {"/completion": fake.llamacpp, "/v1/completions": fake.vllm, "/generate": fake.sglang}
                try:
                    stream[self.path](self.wfile, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def reply(self, status, data):
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _send(self, out, data) -> None:
        out.write(b"data: " + (data if isinstance(data, bytes) else json.dumps(data).encode()) + b"\n\n")
        out.flush()

    def _fault(self, out, index: int) -> bool:
        """Apply the fault at token `index`; True when the stream must end here."""
        if self.mode == "drop" and index == 3:
            return True
        if self.mode == "slow" and index == 1:
            time.sleep(3.0)
        if self.mode == "malformed" and index == 2:
            self._send(out, b"{not json")
            return True
        return False

    def llamacpp(self, out, body) -> None:
        ids = IDS * 200 if self.mode == "endless" else IDS
        pairs = counters(self.spec) + [counters(self.spec)[-1]] * (len(ids) - len(IDS))
        for index, token in enumerate(ids):
            if self._fault(out, index):
                return
            drafted, accepted = pairs[index]
            timings = {"predicted_per_second": 100.0} | ({"draft_n": drafted, "draft_n_accepted": accepted}
                                                          if drafted else {})
            self._send(out, {"content": f"t{token} ", "tokens": [token], "stop": False, "timings": timings})
        final = {"predicted_n": len(ids), "predicted_ms": self.predicted_ms,
                 "predicted_per_second": 1e3 * len(ids) / self.predicted_ms}
        if self.spec:
            final |= {"draft_n": pairs[-1][0], "draft_n_accepted": pairs[-1][1]}
        self._send(out, {"content": "", "tokens": [], "stop": True, "model": "fake", "timings": final,
                         "generation_settings": {"speculative.types": "ngram-simple" if self.spec else "none"}})

    def vllm(self, out, body) -> None:
        for index, token in enumerate(IDS):
            if self._fault(out, index):
                return
            self._send(out, {"choices": [{"index": 0, "text": f"t{token} ", "token_ids": [token]}]})
        stats = {"num_draft_tokens": 5, "num_accepted_draft_tokens": 4, "num_spec_steps": 2, "num_spec_tokens": 3,
                 "acceptance_histogram": {"2": 2}, "mean_acceptance_length": 3.0, "draft_acceptance_rate": 0.8,
                 "per_step_drafted": [3, 2], "per_step_accepted": [2, 2]}  # detailed mode
        if self.spec and self.vllm_shape == "choice":  # acceptance_metrics.md at cd199986: on the terminal choice
            self._send(out, {"choices": [{"index": 0, "text": "", "finish_reason": "length",
                                          "speculative_decoding_stats": stats}]})
        final = {"choices": [], "usage": {"completion_tokens": len(IDS)}}
        if self.spec and self.vllm_shape == "metrics":  # the other stored version: on the final usage chunk
            final["metrics"] = {"speculative_decoding": stats | {"acceptance_histogram": [0, 0, 2, 0]}}
        self._send(out, final)
        self._send(out, b"[DONE]")

    def sglang(self, out, body) -> None:
        for index in range(len(IDS)):
            if self._fault(out, index):
                return
            meta = {"completion_tokens": index + 1}
            if self.spec and index == len(IDS) - 1:
                meta |= {"spec_verify_ct": 2, "spec_num_correct_drafts": 4, "spec_num_proposed_drafts": 6,
                         "spec_accept_rate": 4 / 6, "spec_accept_length": 5.0,
                         "spec_correct_drafts_histogram": [0, 0, 2, 0]}
            self._send(out, {"text": "".join(f"t{t} " for t in IDS[:index + 1]), "output_ids": IDS[:index + 1],
                             "meta_info": meta})
        self._send(out, b"[DONE]")
