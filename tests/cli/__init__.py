"""Tests of app/cli/ (docs/DESIGN.md §9)."""
