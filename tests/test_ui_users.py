"""Several users at once through gradio_client (the short version of benchmarks/users.py)."""

from __future__ import annotations

import sys
import threading

import pytest

pytest.importorskip("gradio_client")

from conftest import ROOT  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))

import users  # noqa: E402

from app.engine.loader import MODEL_CACHE  # noqa: E402
from app.ui.config import UIConfig  # noqa: E402
from app.ui.layout import build_demo, launch_kwargs  # noqa: E402


def test_concurrent_sessions_each_get_their_own_correct_result():
    config = UIConfig(port=users.free_port(), concurrency_limit=2)
    demo = build_demo(config)
    demo.queue(default_concurrency_limit=config.generation_concurrency())
    _, url, _ = demo.launch(server_name="127.0.0.1", server_port=config.port, prevent_thread_lock=True, quiet=True,
                            **launch_kwargs())
    try:
        jobs = [users.JOBS[0], users.JOBS[1], users.JOBS[2]]
        solo = []
        for preset, prompt in jobs:
            out: dict = {}
            users.run_user(url, preset, prompt, 10, out)
            assert out["error"] is None, out["error"]
            solo.append(out["result"])
        loads = MODEL_CACHE.load_count
        outs = [dict() for _ in jobs]
        threads = [threading.Thread(target=users.run_user, args=(url, p, q, 10, o)) for (p, q), o in zip(jobs, outs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        for ref, out in zip(solo, outs):
            assert out["error"] is None, out["error"]
            assert out["result"]["baseline"]["token_ids"] == ref["baseline"]["token_ids"]
            assert out["result"]["assisted"]["token_ids"] == ref["assisted"]["token_ids"]
            assert out["result"]["identical"] is True
        assert MODEL_CACHE.load_count == loads, "a model was loaded again while sessions ran"
        assert any(o["rank"] for o in outs), "no session was shown a queue position"
    finally:
        demo.close()
