"""Tests of the project as a whole: layout, lint, README (docs/DESIGN.md §9)."""
