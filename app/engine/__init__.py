"""The engine: presets, model cache, methods, tracing, race runner. Never imports gradio."""
