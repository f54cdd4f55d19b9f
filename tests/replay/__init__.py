"""Tests of app/replay/ (docs/DESIGN.md §9)."""
