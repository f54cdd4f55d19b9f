"""Tests of app/ui/ (docs/DESIGN.md §9)."""
