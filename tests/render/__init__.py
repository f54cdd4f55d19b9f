"""Tests of app/render/ (docs/DESIGN.md §9)."""
