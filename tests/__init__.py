"""The test suite and its helpers, importable from the repository root as a package (``tests.tiny_models``,
``tests.fuzzing``, ``tests.app_server``, ...), so the benchmarks share them with plain imports."""
