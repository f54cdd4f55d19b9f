"""The Planner tab (see app/ui/planner/tab.py)."""
