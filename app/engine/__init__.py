"""Racing a running serving engine (llama.cpp's llama-server; vLLM and SGLang response formats): the HTTP client,
the engines' own acceptance figures read into the race's contract, local llama-server processes (docs/DESIGN.md §4.7).
Knows nothing of Gradio."""
