"""Tests of app/deploy/ (docs/DESIGN.md §9)."""
