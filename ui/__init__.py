"""Where a person plays: the game in a terminal (:mod:`ui.terminal`, ``play.py``)."""
