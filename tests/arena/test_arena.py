"""The arena: seat rotation, seeding (also across worker processes), records and replays,
summaries, and clear errors."""

import json
from collections import Counter

import pytest
from PIL import Image

from arena import load_records, play_match, render_gif, replay, save_records
from arena.backends import Venue
from arena.game import game_seeds, rotation
from arena.report import ProgressLine
from envs.core import IllegalActionError

NOBLES = {"name": "nobles", "num_players": 2}
NOBLES4 = {"name": "nobles", "num_players": 4}
BLOCKADE = {"name": "blockade", "max_turns": 40}


def outcomes(result):
    return [(g.seats, g.returns, g.turns, g.truncated) for g in result.games]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_rotation_gives_every_agent_every_seat_equally(num_players):
    seats = Counter()
    for index in range(3 * num_players):
        order = rotation(index, num_players)
        assert sorted(order) == list(range(num_players))
        seats.update((agent, seat) for seat, agent in enumerate(order))
    assert set(seats.values()) == {3}
    assert len(seats) == num_players * num_players


def test_match_rotates_seats_and_counts_every_game_once():
    result = play_match(NOBLES4, ["random", "heuristic", "random", "random"], 8, seed=3)
    seats = Counter((g.seats.index(1)) for g in result.games)
    assert seats == {0: 2, 1: 2, 2: 2, 3: 2}
    assert result.names == ["random", "heuristic", "random#2", "random#3"]
    for s in result.summaries:
        assert s.wins + s.shared + s.draws + s.losses == s.games == 8
    assert sum(s.win_share for s in result.summaries) == pytest.approx(
        sum(1 for g in result.games if len(set(g.returns)) > 1) / 8)


def test_a_shared_first_place_is_its_own_column_not_a_win():
    from arena.game import GameResult
    from arena.match import summarize

    games = [GameResult(0, [0, 1, 2], [0.5, 0.5, -1.0], 10, False, [0.0] * 3, [1] * 3),
             GameResult(1, [1, 2, 0], [1.0, -0.5, -0.5], 10, False, [0.0] * 3, [1] * 3),
             GameResult(2, [2, 0, 1], [0.0, 0.0, 0.0], 10, True, [0.0] * 3, [1] * 3)]
    a, b, c = summarize(["a", "b", "c"], games)
    assert (a.wins, a.shared, a.draws, a.losses) == (0, 1, 1, 1)  # seat 0, 2, 1
    assert (b.wins, b.shared, b.draws, b.losses) == (1, 1, 1, 0)
    assert (c.wins, c.shared, c.draws, c.losses) == (0, 0, 1, 2)
    assert (a.win_share, b.win_share) == pytest.approx((0.5 / 3, 1.5 / 3))
    # by seat of the turn order: a drawn game is no share, as in win_share
    assert (a.seat_shares, b.seat_shares, c.seat_shares) == ([0.5, 0, 0], [1, 0.5, 0], [0, 0, 0])


def test_same_seed_same_games_and_other_seed_other_games():
    first = play_match(NOBLES, ["random", "random"], 6, seed=11)
    again = play_match(NOBLES, ["random", "random"], 6, seed=11)
    other = play_match(NOBLES, ["random", "random"], 6, seed=12)
    assert outcomes(first) == outcomes(again)
    assert outcomes(first) != outcomes(other)


def test_a_games_seeds_depend_only_on_its_number():
    short = play_match(NOBLES, ["heuristic", "random"], 2, seed=5, record=True)
    long = play_match(NOBLES, ["heuristic", "random"], 6, seed=5, record=True)
    assert [r.actions for r in short.records] == [r.actions for r in long.records[:2]]
    # A rotation's games share their dice seed; agents get their own seeds.
    dice0, agents0 = game_seeds(5, 0, 2)
    dice1, agents1 = game_seeds(5, 1, 2)
    assert dice0 == dice1 and agents0 != agents1 and game_seeds(5, 2, 2)[0] != dice0


def test_workers_give_the_same_results_as_one_process():
    specs = ["mcts:simulations=8", "random"]
    single = play_match(BLOCKADE, specs, 4, seed=2, record=True)
    pooled = play_match(BLOCKADE, specs, 4, seed=2, record=True, venue=Venue(workers=2))
    assert outcomes(single) == outcomes(pooled)
    assert [r.actions for r in single.records] == [r.actions for r in pooled.records]


def test_records_round_trip_and_replay_exactly(tmp_path):
    result = play_match(NOBLES, ["heuristic", "random"], 2, seed=1, record=True)
    path = tmp_path / "games.jsonl"
    save_records(result.records, path)
    loaded = load_records(path)
    assert len(loaded) == 2
    for record, game in zip(loaded, result.games, strict=True):
        states = list(replay(record))
        assert len(states) == len(record.actions) + 1
        assert states[-1].is_terminal()
        assert list(states[-1].returns()) == game.returns
        assert record.players == [result.names[a] for a in game.seats]


def test_replay_names_the_step_where_a_record_diverges(tmp_path):
    record = play_match(NOBLES, ["random", "random"], 1, seed=1, record=True).records[0]
    data = json.loads(json.dumps(record.positions[5]))
    data["turn"] += 1
    record.positions[5] = data
    with pytest.raises(ValueError, match="diverges at step 5"):
        list(replay(record))


def test_gif_has_a_frame_per_decision_position(tmp_path):
    short = {"name": "blockade", "max_turns": 10}
    record = play_match(short, ["heuristic", "random"], 1, seed=1, record=True).records[0]
    path = render_gif(record, tmp_path / "game.gif", frame_ms=50)
    with Image.open(path) as image:
        assert image.n_frames == len(record.positions)  # Blockade has no chance nodes


class Cheater:
    name = "cheater"

    def reset(self, game, player, seed):
        pass

    def act(self, state):
        return next(a for a in range(len(state.legal_actions_mask()))
                    if not state.legal_actions_mask()[a])


def test_a_worker_runs_torch_on_the_venues_threads(tmp_path):
    """A worker process starts with torch's default threads, one per core; with a worker per
    core those spin against each other (minutes a game instead of seconds): each game sets the
    venue's threads once its agents have imported torch."""
    import torch
    from policy_files import tiny_checkpoint

    from arena.backends import Task, _play_task

    nobles = {"name": "nobles", "num_players": 2}
    checkpoint = tiny_checkpoint(tmp_path / "last.pt", nobles)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        _play_task(Task(nobles, (f"checkpoint:{checkpoint}", "random"), {}, 0, 0, False, 1))
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_agent_instances_play_in_process_and_illegal_moves_name_the_agent():
    with pytest.raises(IllegalActionError, match="agent cheater in seat"):
        play_match(BLOCKADE, [Cheater(), "random"], 2, seed=0)
    with pytest.raises(ValueError, match="workers=1"):
        play_match(BLOCKADE, [Cheater(), "random"], 2, seed=0, venue=Venue(workers=2))


def test_lineup_must_fill_every_seat():
    with pytest.raises(ValueError, match="needs 4 agents, got 2"):
        play_match(NOBLES4, ["random", "random"], 4, seed=0)


def test_progress_lines_estimate_the_time_left_once_a_tenth_is_done(capsys):
    line = ProgressLine("evaluation", 20, every_s=0.0)
    for _ in range(20):
        line()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 20 and lines[0].startswith("evaluation: 1/20 games, ")
    assert "left" not in lines[0]  # one game of a bunch played side by side says little
    assert all("s left" in text for text in lines[1:19])
    assert lines[-1].startswith("evaluation: 20/20 games") and "left" not in lines[-1]


def test_wandb_does_not_offer_weave_for_our_agents_package(monkeypatch, capsys):
    """W&B's Weave suggestion, made at every run for an imported package named ``agents``
    (an LLM library's name), is turned off wherever we import wandb."""
    import agents  # noqa: F401 - what W&B detects
    from arena.media import import_wandb

    monkeypatch.delenv("WANDB_DISABLE_WEAVE", raising=False)
    import_wandb()
    from wandb.integration.weave import init_weave_if_imported

    init_weave_if_imported(None, "boardgame-rl")
    assert "Weave" not in capsys.readouterr().err
