"""Tests of app/bench/ (docs/DESIGN.md §9)."""
