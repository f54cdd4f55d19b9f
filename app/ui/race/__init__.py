"""The Race tab (see app/ui/race/tab.py)."""
