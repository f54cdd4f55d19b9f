"""The Benchmark tab (app/bench in the page)."""
