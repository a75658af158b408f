"""Blockade as published (RULES.md section 1, "Variants"): the open-path rule, jumps and the
``lakeside`` preset. The fast wall mask is checked against a plain search per anchor."""

import warnings
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from blockade_positions import with_walls
from hypothesis import given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf
from pettingzoo.test import api_test, seed_test

import envs
from envs import blockade
from envs.blockade.engine import NUM_MOVE_ACTIONS
from envs.core import IllegalActionError

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "env"


def position(game, pawns=None, walls=(), to_move=0, phase="wall"):
    """A position of ``game`` (9 + 9 walls each) with its start squares, ``pawns``
    (``{player: [[r, c], [r, c]]}``) moved and ``walls`` placed."""
    start = [[list(game.coords(x)) for x in cells] for cells in game.start_cells]
    for player, pair in (pawns or {}).items():
        start[player] = pair
    return with_walls({"game": "blockade", "num_players": game.num_players, "rows": game.rows,
                       "cols": game.cols, "pawns": start, "to_move": to_move, "phase": phase,
                       "turn": 0}, walls)


def wall_action(game, orientation: str, r: int, c: int) -> int:
    return NUM_MOVE_ACTIONS + game.wall_index("VH".index(orientation), r, c)


def move_action(pawn: int, offset: tuple[int, int]) -> int:
    return 12 * pawn + blockade.engine.MOVE_OFFSETS.index(offset)


# A pocket of four cells at the top edge, b1 c1 b2 c2 (rows 0-1, columns 1-2), closed by V(1,3)
# on its right, H(2,2) below, and V(1,1) on its left, which closes the loop.
POCKET_WALLS = [["V", 1, 3], ["H", 2, 2]]
POCKET_CLOSER = ("V", 1, 1)


# ----- the open-path rule -----
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_wall_cutting_the_last_path_is_illegal_and_names_the_pawn(num_players):
    game = blockade.Game(num_players=num_players, path_rule="open")
    trapped = num_players - 1
    pawns = {trapped: [[0, 1], list(game.coords(game.start_cells[trapped][1]))]}
    state = game.state_from_dict(position(game, pawns, POCKET_WALLS))
    closer = wall_action(game, *POCKET_CLOSER)
    assert not state.legal_actions_mask()[closer]
    assert closer not in state.legal_actions()
    before = state.to_dict()
    with pytest.raises(IllegalActionError, match=f"player {trapped}'s pawn on b1 without a "
                                                 "path to its goal"):
        state.apply_action(closer)
    assert state.to_dict() == before
    # Under the seed's rules the same wall shuts the pawn in.
    seed_game = blockade.Game(num_players=num_players)
    seed_state = seed_game.state_from_dict(position(seed_game, pawns, POCKET_WALLS))
    assert seed_state.legal_actions_mask()[closer]


def test_a_wall_sealing_a_goal_square_is_illegal():
    game = blockade.Game(path_rule="open", start_squares={"SE": [[12, 9], [10, 7]]})
    # V(13,9) and H(12,10) shut the 2x2 corner j13 k13 j14 k14 that holds player 0's goal j13.
    state = game.state_from_dict(position(game, {1: [[11, 5], [10, 7]]}, [["V", 13, 9]]))
    closer = wall_action(game, "H", 12, 10)
    assert not state.legal_actions_mask()[closer]
    with pytest.raises(IllegalActionError, match="path to its goal j13"):
        state.apply_action(closer)


def test_a_wall_cutting_one_of_two_paths_is_legal():
    """V(1,1) closes the empty pocket and cuts a1-b1, one of the two ways out of a1; a1-a2 is
    left, so the wall stands."""
    game = blockade.Game(path_rule="open")
    state = game.state_from_dict(position(game, {0: [[0, 0], [3, 3]]}, POCKET_WALLS))
    closer = wall_action(game, *POCKET_CLOSER)
    assert state.legal_actions_mask()[closer]
    state.apply_action(closer)
    assert ["V", 1, 1] in state.to_dict()["walls"]
    assert paths_ok(state)


def test_a_position_breaking_the_path_rule_is_rejected_with_the_pawn():
    game = blockade.Game(path_rule="open")
    shut = position(game, {0: [[0, 1], [3, 3]]}, [*POCKET_WALLS, list(POCKET_CLOSER)])
    with pytest.raises(ValueError, match="player 0's pawn on b1 has no path to its goal"):
        game.state_from_dict(shut)
    # Terminal positions too: player 1 has won, player 0's pawn is still shut in.
    won = {**shut, "pawns": [[[0, 1], [3, 3]], [[2, 2], [10, 7]]], "phase": "move"}
    with pytest.raises(ValueError, match="player 0's pawn on b1"):
        blockade.Game(path_rule="open", win_condition="any").state_from_dict(won)
    # The seed's rules load it: the config decides what is legal.
    assert blockade.Game().state_from_dict(shut).to_dict()["walls"] == shut["walls"]


# ----- jumps -----
JUMP_BASE = {0: [[4, 4], [0, 0]], 1: [[5, 4], [13, 10]]}


def jump_state(jumps: bool, pawns=None, walls=()):
    game = blockade.Game(jumps=jumps)
    return game.state_from_dict(position(game, {**JUMP_BASE, **(pawns or {})}, walls,
                                         phase="move"))


def test_a_pawn_jumps_straight_over_another_players_pawn():
    jump = move_action(0, (2, 0))
    assert jump in jump_state(True).legal_actions()
    assert jump not in jump_state(False).legal_actions()
    assert move_action(0, (1, 0)) not in jump_state(True).legal_actions()  # 1 step: occupied
    state = jump_state(True)
    state.apply_action(jump)
    assert state.to_dict()["pawns"][0][0] == [6, 4]


def test_a_pawn_jumps_over_its_own_pawn():
    pawns = {0: [[4, 4], [4, 5]], 1: [[12, 0], [13, 10]]}
    assert move_action(0, (0, 2)) in jump_state(True, pawns).legal_actions()
    assert move_action(0, (0, 2)) not in jump_state(False, pawns).legal_actions()


def test_an_l_shaped_jump_passes_over_a_pawn_on_either_route():
    # Both routes to f6 pass a pawn (e6 of player 1, f5 of player 0's own other pawn).
    pawns = {0: [[4, 4], [4, 5]]}
    diagonal = move_action(0, (1, 1))
    assert diagonal in jump_state(True, pawns).legal_actions()
    assert diagonal not in jump_state(False, pawns).legal_actions()


@pytest.mark.parametrize("walls, pawns", [
    ([["H", 6, 5]], None),  # a wall between the jumped pawn and the landing cell
    ([["H", 5, 5]], None),  # a wall between the mover and the jumped pawn
    ([], {1: [[5, 4], [6, 4]]}),  # the landing cell is occupied
])
def test_a_jump_is_blocked_by_walls_and_by_an_occupied_landing(walls, pawns):
    assert move_action(0, (2, 0)) not in jump_state(True, pawns, walls).legal_actions()


def test_a_player_boxed_in_by_pawns_still_moves_by_jumping():
    """Player 0 on a1 and b1: every step of both leads onto a pawn (a2, c1) or through H(1,2);
    only jumps are left, so without jumps the turn starts at the wall phase."""
    pawns = {0: [[0, 0], [0, 1]], 1: [[1, 0], [0, 2]]}
    walls = [["H", 1, 2]]
    for jumps, expected in ((True, "move"), (False, "wall")):
        game = blockade.Game(jumps=jumps)
        state = game.state_from_dict(position(game, pawns, walls, phase="move"))
        assert state.to_dict()["phase"] == expected


# ----- presets and config -----
def test_the_lakeside_preset():
    game = blockade.Game(rules="lakeside")
    assert (game.win_condition, game.path_rule, game.jumps, game.max_turns) == (
        "any", "open", True, 200)
    assert game.walls_per_orientation == 9
    state = game.new_initial_state()
    assert state.to_dict()["pawns"] == [[[3, 3], [3, 7]], [[10, 7], [10, 3]]]
    assert game.goal_cells[0] == {game.cell(10, 7), game.cell(10, 3)}
    assert game.goal_cells[1] == {game.cell(3, 3), game.cell(3, 7)}
    assert "rules='lakeside'" in repr(game)
    seed = blockade.Game()
    assert (seed.rules, seed.win_condition, seed.path_rule, seed.jumps, seed.max_turns) == (
        "seed", "both", "none", False, 200)


def test_keys_given_with_the_preset_override_it():
    game = blockade.Game(rules="lakeside", win_condition="both", jumps=False, max_turns=50)
    assert (game.win_condition, game.path_rule, game.jumps, game.max_turns) == (
        "both", "open", False, 50)
    game = blockade.Game(rules="lakeside", start_squares={"NW": [[2, 2], [3, 3]]})
    assert game.new_initial_state().to_dict()["pawns"][0] == [[2, 2], [3, 3]]
    # A start_squares replaces the preset's: the corners not given come from RULES.md's table.
    assert game.new_initial_state().to_dict()["pawns"][1] == [[11, 8], [10, 7]]
    four = blockade.Game(rules="lakeside", num_players=4, start_squares={})
    assert four.path_rule == "open" and four.num_players == 4


@pytest.mark.parametrize("config, message", [
    ({"rules": "quoridor"}, "rules must be one of seed, lakeside"),
    ({"rules": "lakeside", "num_players": 3}, "give start_squares"),
    ({"rules": "lakeside", "rows": 12}, "give start_squares"),
    ({"path_rule": "closed"}, "path_rule"),
    ({"jumps": "yes"}, "jumps"),
])
def test_bad_rule_configs_say_what_is_wrong(config, message):
    with pytest.raises(ValueError, match=message):
        blockade.Game(**config)


def test_start_squares_must_differ_only_among_seated_corners():
    # NE's default squares (i3, h4) clash with this NW only when NE is seated.
    squares = {"NW": [[3, 3], [3, 7]]}
    blockade.Game(num_players=2, start_squares=squares)
    with pytest.raises(ValueError, match="seated corners share a square"):
        blockade.Game(num_players=3, start_squares=squares)
    with pytest.raises(ValueError, match="off the board"):
        blockade.Game(num_players=2, start_squares={"NE": [[0, 0], [0, 11]]})


def test_the_hydra_config_makes_the_preset_and_checkpoints_tell_it_apart():
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONFIGS.parent), version_base="1.3"):
        config = OmegaConf.to_container(compose("config", overrides=["env=blockade_lakeside"]).env)
    game = envs.make_game(config)
    assert repr(game) == repr(blockade.Game(rules="lakeside"))
    seed_config = envs.default_config("blockade")
    assert envs.config_mismatch(config, game) is None
    assert "rules='lakeside'" in envs.config_mismatch(seed_config, game)
    overridden = {**seed_config, "rules": "lakeside"}
    assert envs.config_mismatch(overridden, game) is None


def test_the_env_says_which_rules_it_plays_and_passes_pettingzoo_checks():
    env = blockade.env(rules="lakeside")
    assert env.unwrapped.metadata["rules"] == {"rules": "lakeside", "win_condition": "any",
                                               "path_rule": "open", "jumps": True}
    assert "rules='lakeside'" in repr(env.unwrapped)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=200, verbose_progress=False)
        seed_test(lambda: blockade.env(rules="lakeside"), num_cycles=200)


# ----- properties: paths kept, fast mask equals a search per anchor -----
def reachable(game, open_, source: int) -> set[int]:
    seen, queue = {source}, deque([source])
    while queue:
        x = queue.popleft()
        for d, y in game.neighbours[x]:
            if open_[x] & d and y not in seen:
                seen.add(y)
                queue.append(y)
    return seen


def all_paths_open(game, open_, pawns) -> bool:
    for p in range(game.num_players):
        for k in range(2):
            if not game.goal_cells[p] <= reachable(game, open_, pawns[2 * p + k]):
                return False
    return True


def paths_ok(state) -> bool:
    return all_paths_open(state.game, state.open, state.pawns)


def brute_force_wall_mask(state) -> np.ndarray:
    """One plain search per free anchor (and pawn): the rule as written."""
    game = state.game
    supply = state._wall_supply_mask(state.to_move)
    mask = np.zeros_like(supply)
    for w in np.flatnonzero(supply):
        open_ = bytearray(state.open)
        for x, d in game.wall_edges[w]:
            open_[x] &= ~d
        mask[w] = all_paths_open(game, open_, state.pawns)
    return mask


def random_open_game(config, max_turns=None):
    rows, cols, num_players, jumps, supply = config
    return blockade.Game(num_players=num_players, rows=rows, cols=cols, path_rule="open",
                         jumps=jumps, walls_per_orientation=supply, max_turns=max_turns)


CONFIG = st.tuples(st.integers(8, 14), st.integers(8, 11), st.sampled_from([2, 3, 4]),
                   st.booleans(), st.integers(4, 14))
"""Board rows and columns, players, jumps, walls per orientation: small boards with large
supplies give the crowded layouts where walls close loops."""


def check_fast_mask_equals_brute_force(config, seed, plies):
    """Random play for ``plies`` plies, on to the next wall phase, then both masks compared."""
    rng = np.random.default_rng(seed)
    state = random_open_game(config).new_initial_state()
    played = 0
    while not state.is_terminal() and (played < plies or state.phase == 0):
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
        played += 1
    if not state.is_terminal():
        np.testing.assert_array_equal(state.legal_actions_mask()[NUM_MOVE_ACTIONS:],
                                      brute_force_wall_mask(state))


@settings(max_examples=100, deadline=None)
@given(config=CONFIG, seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 120))
def test_fast_wall_mask_equals_one_search_per_anchor(config, seed, plies):
    check_fast_mask_equals_brute_force(config, seed, plies)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None)
@given(config=CONFIG, seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 200))
def test_fast_wall_mask_equals_one_search_per_anchor_on_thousands(config, seed, plies):
    check_fast_mask_equals_brute_force(config, seed, plies)


def check_every_wall_phase_equals_brute_force(config, seed):
    """A whole game with every wall phase checked, and siblings' (clones, as a search explores
    them) that play another action first: in a wall phase another wall; in a move phase
    another move into its own wall phase, on the same walls as the state, whose candidates
    the engine keeps per wall layout and supply (so the two share them with other pawns).
    The regions found in one wall layout are carried to the next
    (``paths.WallLayout._kept_regions``), so an error there would build up along a game rather
    than show at one position."""
    rng = np.random.default_rng(seed)
    state = random_open_game(config, max_turns=24).new_initial_state()
    while not state.is_terminal():
        actions = state.legal_actions()
        sibling = state.clone()
        sibling.apply_action(actions[rng.integers(len(actions))])
        for position in (state, sibling):
            if position.phase == 1 and not position.is_terminal():
                np.testing.assert_array_equal(position.legal_actions_mask()[NUM_MOVE_ACTIONS:],
                                              brute_force_wall_mask(position))
        state.apply_action(actions[rng.integers(len(actions))])


def test_a_wall_phase_mask_shared_by_positions_cannot_be_written():
    """The engine keeps a wall phase's mask for every position on the same walls: writing to
    the one a caller got fails instead of changing the others'."""
    state = blockade.Game(rules="lakeside").new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.phase == 1
    sibling = state.clone()
    with pytest.raises(ValueError, match="read-only"):
        state.legal_actions_mask()[NUM_MOVE_ACTIONS] = False
    assert sibling.legal_actions_mask().sum() == len(sibling.legal_actions())


@settings(max_examples=6, deadline=None)
@given(config=CONFIG, seed=st.integers(0, 2**32 - 1))
def test_every_wall_phase_of_a_game_equals_one_search_per_anchor(config, seed):
    check_every_wall_phase_equals_brute_force(config, seed)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(config=CONFIG, seed=st.integers(0, 2**32 - 1))
def test_every_wall_phase_of_many_games_equals_one_search_per_anchor(config, seed):
    check_every_wall_phase_equals_brute_force(config, seed)


def check_random_play_keeps_every_path(config, seed):
    rng = np.random.default_rng(seed)
    state = random_open_game(config, max_turns=80).new_initial_state()
    while not state.is_terminal():
        actions = state.legal_actions()
        assert actions, "a non-terminal state with no legal action"
        state.apply_action(actions[rng.integers(len(actions))])
        assert paths_ok(state)
    assert state.returns().sum() == pytest.approx(0)


@settings(max_examples=20, deadline=None)
@given(config=CONFIG, seed=st.integers(0, 2**32 - 1))
def test_random_play_under_open_keeps_every_path(config, seed):
    check_random_play_keeps_every_path(config, seed)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(config=CONFIG, seed=st.integers(0, 2**32 - 1))
def test_random_play_under_open_keeps_every_path_in_many_games(config, seed):
    check_random_play_keeps_every_path(config, seed)


@pytest.mark.parametrize("num_players", [3, 4])
def test_three_and_four_player_open_path_games_end_with_a_winner_under_random_play(num_players):
    """env=blockade_open (the seed's corners, path_rule open, jumps, one pawn home wins): with
    three and four players random play ends every game with one winner, given the turns (no
    deadlock: every pawn keeps a path to its goals, and pawns jump pawns). The returns are the
    winner's +1 and -1/(n-1) for everyone else."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONFIGS.parent), version_base="1.3"):
        config = OmegaConf.to_container(compose("config", overrides=[
            "env=blockade_open", f"env.num_players={num_players}", "env.max_turns=100000"]).env)
    game = envs.make_game(config)
    assert (game.path_rule, game.jumps, game.win_condition) == ("open", True, "any")
    for seed in range(4):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        returns = state.returns()
        assert not state.is_truncated()
        assert sorted(returns) == pytest.approx([-1 / (num_players - 1)] * (num_players - 1) + [1])


# ----- the evaluate hook (search leaves): the race counted in turns -----
OPEN_3P = {"name": "blockade", "num_players": 3, "win_condition": "any", "path_rule": "open",
           "jumps": True}


def test_the_race_in_turns_favours_whoever_gets_there_first():
    """Three equal races from the corners: the seat to move finishes a turn before the next and
    two before the last (leads of 1/3 and 2/3 of a round, tanh of that over 3 rounds); once
    seat 0 has moved, seat 1 is next to move and the first to finish. Two steps nearer is a turn
    ahead."""
    from envs.blockade.hooks import evaluate

    game = envs.make_game(OPEN_3P)
    start = game.new_initial_state()
    np.testing.assert_allclose(evaluate(start), np.tanh([1 / 9, -1 / 9, -2 / 9]))
    moved = game.state_from_dict({**start.to_dict(), "phase": "wall"})
    np.testing.assert_allclose(evaluate(moved), np.tanh([-2 / 9, 1 / 9, -1 / 9]))
    pawns = start.to_dict()["pawns"]
    ahead = game.state_from_dict({**start.to_dict(), "to_move": 1, "pawns": [
        pawns[0], [[4, 6], [3, 7]], pawns[2]]})  # a pawn of seat 1 two steps nearer its goal
    values = evaluate(ahead)
    assert values[1] > 0 > values[0] and values.argmax() == 1
    # 9 steps (5 turns) against 11 (6): it finishes 4 single turns before seat 2, who moves next
    np.testing.assert_allclose(values[1], np.tanh(4 / 9))


def test_the_race_in_turns_is_the_heuristics_evaluation_and_a_finished_game_its_returns():
    """The heuristic plays by the same race (it also routes around pawns, which with jumps
    seldom matters): equal on every position of these games."""
    import random

    from agents.heuristic import heuristic_for
    from envs.blockade.hooks import evaluate

    game = envs.make_game(OPEN_3P)
    heuristic, rng = heuristic_for(game), random.Random(0)
    state = game.new_initial_state()
    while not state.is_terminal():
        np.testing.assert_allclose(evaluate(state), heuristic.evaluate(state))
        actions = state.legal_actions()
        state.apply_action(heuristic.choose(state, rng) if rng.random() < 0.7
                           else actions[rng.randrange(len(actions))])
    np.testing.assert_allclose(evaluate(state), state.returns())
