"""Tests of app/race/ (docs/DESIGN.md §9)."""
