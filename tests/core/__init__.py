"""Tests of app/core/ (docs/DESIGN.md §9)."""
