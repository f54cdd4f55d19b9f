"""Tests of app/planner/ (docs/DESIGN.md §9)."""
