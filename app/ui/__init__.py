"""The web UI: builds the gradio Blocks and wires events; rendering lives in pure modules.

- :mod:`app.ui.config`   launch options (``python app.py --help``) and limits
- :mod:`app.ui.layout`   ``build_demo(config) -> gr.Blocks`` and ``launch_kwargs()``
- :mod:`app.ui.handlers` event functions: streaming race / measure, stop, toggles
- :mod:`app.ui.api`      the named ``/race`` and ``/measure`` endpoints
- :mod:`app.ui.controls` preset choices and per-preset control values
- :mod:`app.ui.session`  per-session state (``gr.State``) and requests from control values
- :mod:`app.ui.render`, :mod:`app.ui.render_stats`  pure HTML render functions
- :mod:`app.ui.theme`    theme and CSS
"""
