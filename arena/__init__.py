"""Matches between agents (``play_match``), their statistics and ratings, game records and
replays, and the tables and files an evaluation reports."""

from arena.match import AgentSummary, GameResult, MatchResult, play_match, rate
from arena.records import GameRecord, load_records, render_gif, replay, save_records

__all__ = ["AgentSummary", "GameRecord", "GameResult", "MatchResult", "load_records",
           "play_match", "rate", "render_gif", "replay", "save_records"]
