"""The Replay tab (recorded races, uploaded traces, an embedded replay player) and the race downloads."""
