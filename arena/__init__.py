"""Matches between agents (``play_match``), their statistics and ratings, game records and
replays, and the tables and files an evaluation reports."""

from arena.game import GameResult
from arena.match import AgentSummary, MatchResult, play_match
from arena.records import GameRecord, load_records, render_gif, replay, save_records
from arena.stats import rate

__all__ = ["AgentSummary", "GameRecord", "GameResult", "MatchResult", "load_records",
           "play_match", "rate", "render_gif", "replay", "save_records"]
