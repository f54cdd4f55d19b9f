"""Tests of app/engine/ (docs/DESIGN.md §9)."""
