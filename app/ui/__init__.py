"""The web UI: builds the gradio page and wires events; rendering lives in pure modules.

- :mod:`app.ui.config`    launch options (``python app.py --help``) and limits
- :mod:`app.ui.page`      ``build_app(config) -> App`` (the Blocks and its tabs) and ``launch_kwargs()``
- :mod:`app.ui.html`, :mod:`app.ui.streaming`, :mod:`app.ui.theme`  shared pieces: escaping and the status
  line, the run-in-a-thread-and-stream helper, theme and CSS
- :mod:`app.ui.race`      the Race tab: ``tab`` (sections), ``handlers``, ``controls``, ``session``,
  ``render`` / ``stats`` (pure HTML), ``api`` (the ``/race`` and ``/measure`` endpoints)
- :mod:`app.ui.planner`   the Planner tab: ``tab``, ``handlers`` (and the ``/plan`` endpoint), ``render``, ``plot``
- :mod:`app.ui.replay`    the Replay tab: ``tab``, ``handlers``, ``render``; ``files`` (the race downloads, the share link)
"""
