"""Derived input features: Blockade goal-distance planes in each player's view, Nobles' capture
odds and standing."""

import numpy as np
import pytest
from blockade_positions import with_walls

import envs
from agents.heuristic import heuristic_for
from envs import blockade, nobles
from envs.blockade.distances import (
    walk_distances,
    walk_distances_from_each,
    walk_distances_of_states,
)
from envs.blockade.engine import OPPOSITE_CORNER as OPPOSITE
from envs.blockade.features import DistancePlanes
from envs.nobles.engine import progress_of, shared_tile, tile_of
from envs.nobles.features import CaptureOdds
from envs.nobles.standing import Standing, standing_of
from models.features import make_encoder


@pytest.mark.parametrize("players", [2, 3, 4])
def test_distance_planes_hold_each_seats_walking_distance_in_the_view(players):
    """Every seat's plane per goal square holds, under that seat's pawns, their walking
    distances to it, in steps / (rows + cols), capped at 1."""
    game = blockade.Game(num_players=players)
    encoder = make_encoder(game, ["goal_steps"])
    assert isinstance(encoder, DistancePlanes)
    horizon = game.rows + game.cols
    base = blockade.Encoder(game)
    state = game.new_initial_state()
    position = state.to_dict()
    with_walls(position, [["H", 5, 3], ["V", 7, 6], ["H", 9, 8]])
    state = game.state_from_dict(position)
    for p in range(players):
        obs = encoder.encode(state, p)
        assert obs.shape == encoder.shape == (base.shape[0] + 2 * players, *base.shape[1:])
        np.testing.assert_array_equal(obs[: base.shape[0]], base.encode(state, p))
        planes = obs[base.shape[0]:]
        for i in range(players):
            seat = (p + i) % players
            pawn_view = obs[2 * i: 2 * i + 2].sum(axis=0).astype(bool)  # seat i's pawns
            for k in range(2):
                plane = planes[2 * i + k]
                assert (plane == 0).sum() == 1  # its goal square, wherever the view puts it
                # Under the seat's pawns: each pawn's walking distance to that goal square.
                goal = game.cell(*game.start_squares[OPPOSITE[game.corners[seat]]][k])
                distances = walk_distances(game, state, [goal])
                expected = sorted(min(distances[x], horizon)
                                  for x in state.pawns[2 * seat: 2 * seat + 2])
                assert sorted(np.round(plane[pawn_view] * horizon)) == expected
    np.testing.assert_array_equal(encoder.view_to_board_actions(1),
                                  base.view_to_board_actions(1))


def test_unknown_or_unsupported_features_are_clear_errors():
    with pytest.raises(ValueError, match="unknown model feature"):
        make_encoder(blockade.Game(), ["magic"])
    with pytest.raises(ValueError, match="unknown model feature 'goal_steps' for nobles"):
        make_encoder(nobles.Game(), ["goal_steps"])
    assert isinstance(make_encoder(nobles.Game()), nobles.Encoder)
    assert isinstance(make_encoder(nobles.Game(), ["auto"]), nobles.Encoder)
    auto = make_encoder(blockade.Game(), ["auto"])
    explicit = make_encoder(blockade.Game(), ["goal_steps"])
    assert auto.shape == explicit.shape and auto.horizon == explicit.horizon == 25


def reference_distances(game, state, source):
    """Plain breadth-first search over the engine's neighbour table."""
    from collections import deque

    dist = [game.num_cells] * game.num_cells
    dist[source] = 0
    queue = deque([source])
    while queue:
        x = queue.popleft()
        for direction, y in game.neighbours[x]:
            if state.open[x] & direction and dist[y] > dist[x] + 1:
                dist[y] = dist[x] + 1
                queue.append(y)
    return dist


@pytest.mark.parametrize("rows,cols", [(14, 11), (9, 9), (8, 12)])
def test_bitboard_distances_equal_a_plain_breadth_first_search(rows, cols):
    game = blockade.Game(rows=rows, cols=cols)
    rng = np.random.default_rng(0)
    state, recent = game.new_initial_state(), []
    for _ in range(300):
        if state.is_terminal():
            state = game.new_initial_state()
        state.apply_action(int(rng.choice(state.legal_actions())))
        source = int(rng.integers(game.num_cells))
        assert walk_distances(game, state, [source]).tolist() == \
            reference_distances(game, state, source)
        # Several searches side by side in one bitboard (lanes) do not leak into each other.
        sources = [int(x) for x in rng.integers(game.num_cells, size=5)]
        together = walk_distances_from_each(game, state, [[x] for x in sources])
        assert [row.tolist() for row in together] == \
            [reference_distances(game, state, x) for x in sources]
        recent.append(state.clone())
    # Positions with different walls side by side (a search batch's leaves) as well.
    sources = [[0], [game.num_cells - 1, 5]]
    batch = walk_distances_of_states(game, recent[-40::3], sources)
    for state, maps in zip(recent[-40::3], batch, strict=True):
        assert maps.tolist() == walk_distances_from_each(game, state, sources).tolist()


@pytest.mark.parametrize("rules", ["seed", "lakeside"])
@pytest.mark.parametrize("players", [2, 3])
def test_race_planes_hold_each_seats_race_distance_from_the_observers_seat(players, rules):
    """``race_steps``: one constant plane per relative seat, that seat's race distance (its
    pawns' walking steps to meet the win condition, by a plain search here) / (rows + cols)."""
    game = (blockade.Game(rules="lakeside") if players == 2 else
            blockade.Game(num_players=players, path_rule="open", jumps=True)) \
        if rules == "lakeside" else blockade.Game(num_players=players)
    encoder = make_encoder(game, ["goal_steps", "race_steps"])
    inner = make_encoder(game, ["goal_steps"])
    horizon = game.rows + game.cols
    rng = np.random.default_rng(players)
    state = game.new_initial_state()
    for _ in range(30):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
        for p in range(players):
            obs = encoder.encode(state, p)
            assert obs.shape == encoder.shape == (inner.shape[0] + players, *inner.shape[1:])
            np.testing.assert_array_equal(obs[:inner.shape[0]], inner.encode(state, p))
            for i in range(players):
                seat = (p + i) % players
                goals = [game.cell(*square)
                         for square in game.start_squares[OPPOSITE[game.corners[seat]]]]
                steps = [[walk_distances(game, state, [goal])[pawn] for goal in goals]
                         for pawn in state.pawns[2 * seat: 2 * seat + 2]]
                race = (min(steps[0][0] + steps[1][1], steps[0][1] + steps[1][0])
                        if game.win_condition == "both" else min(min(row) for row in steps))
                plane = obs[inner.shape[0] + i]
                assert np.all(plane == plane[0, 0])
                assert plane[0, 0] == np.float32(min(race, horizon)) / np.float32(horizon)


@pytest.mark.parametrize("features", ["goal_steps", "race_steps"])
@pytest.mark.parametrize("players", [2, 4])
def test_a_batch_encodes_each_position_as_alone(players, features):
    """encode_many (search leaves, rollout steps: mixed walls, movers and seats) gives every
    position exactly the planes it gets when encoded on its own."""
    game = blockade.Game(num_players=players)
    encoder = make_encoder(game, (features,))
    rng = np.random.default_rng(players)
    state, positions = game.new_initial_state(), []
    while len(positions) < 60:
        if state.is_terminal():
            state = game.new_initial_state()
        state.apply_action(int(rng.choice(state.legal_actions())))
        positions.append(state.clone())
    seats = [int(rng.integers(players)) for _ in positions]
    batch = encoder.encode_many([p.clone() for p in positions], seats)
    for position, seat, planes in zip(positions, seats, batch, strict=True):
        np.testing.assert_array_equal(planes, encoder.encode(position.clone(), seat))


# -- Nobles: capture odds ------------------------------------------------------------------------

def nobles_state(n, nobles, guards, to_move=0):
    return nobles_game(n).state_from_dict({
        "nobles": nobles, "guards": guards, "scores": [0] * n, "to_move": to_move,
        "roll": None, "turn": 0})


def nobles_game(n):
    return nobles.Game(num_players=n)


def test_capture_odds_of_a_scenario_add_each_movers_roll_chance():
    """Seat 2 (player 1 of 2) has a Guard on tile 10 and its Noble in the Yard. A lone piece of
    player 0 on tile 17 is 7 steps from the Guard (6/36); on tile 12, 2 steps (1/36); Castle 22
    and entering tile 14 are safe; tile 33 is 7 steps from the Yard (the first step lands on
    entering tile 27), so the Noble leaving the Yard hits it with 6/36."""
    game = nobles_game(2)
    state = nobles_state(2, nobles=[57, 0], guards=[[58] * 4, [36, 58, 58, 58]])
    assert tile_of(2, 36) == 10 and tile_of(2, 7) == 33
    encoder = make_encoder(game, ["capture_odds"])
    assert isinstance(encoder, CaptureOdds)
    danger = encoder.danger(state)
    assert danger[0, 17 - 1] == pytest.approx(6 / 36)
    assert danger[0, 12 - 1] == pytest.approx(1 / 36)
    assert danger[0, 22 - 1] == 0.0 and danger[0, 14 - 1] == 0.0  # Castle, entering tile
    assert danger[0, 33 - 1] == pytest.approx(6 / 36)  # the Yard Noble: progress 7, 7 steps
    assert danger[0, 10 - 1] == 0.0  # the Guard's own tile: no mover lands there
    assert danger[1].max() == 0.0  # player 0 has every piece Home: no attacker


def test_capture_odds_of_three_attackers_combine_as_independent_rolls():
    """Each opponent rolls once: player 0's Guard on tile 33, with the others' Guards 7 (seat 1,
    tile 26), 6 (seat 2, its entering tile 27) and 8 steps (seat 3, tile 25) before it, is hit
    with 1 - (30/36)(31/36)(31/36); its own pieces never count against it. A Guard of seat 1
    on tile 12 could not reach tile 18: seat 1's lap ends on tile 13, where it turns Home."""
    game = nobles_game(4)
    guards = [[33, 30, 58, 58]]  # its second Guard, 3 steps behind, is no threat to it
    for seat, tile in zip((1, 2, 3), (26, 27, 25), strict=True):
        guards.append([progress_of(seat, tile), 58, 58, 58])
    guards[1][1] = progress_of(1, 12)
    state = nobles_state(4, nobles=[57] * 4, guards=guards)
    danger = make_encoder(game, ["capture_odds"]).danger(state)
    assert danger[0, 33 - 1] == pytest.approx(1 - (30 / 36) * (31 / 36) * (31 / 36))
    assert danger[0, 18 - 1] == 0.0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_capture_odds_equal_the_heuristics_risk_and_sit_in_the_observers_frame(players):
    """On positions of random games (Nobles out of the Yard, where the heuristic leaves them
    out), every lone piece's risk by the heuristic's own arithmetic equals its tile's capture
    odds; the encoding shows seat ``(me + j) % n``'s odds in slot ``j`` at the observer's
    progress of each tile."""
    game = nobles_game(players)
    heuristic = heuristic_for(game)
    encoder = make_encoder(game, ["capture_odds"])
    base = nobles.Encoder(game)
    rng = np.random.default_rng(players)
    checked = 0
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                values, odds = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(values, p=odds)))
                continue
            if all(0 < p for p in state.nobles):
                danger = encoder.danger(state)
                reach = heuristic.standing.reach(state)
                for q in range(players):
                    for p in {state.nobles[q], *state.guards[q]}:
                        if 1 <= p <= 52 and state.guards[q].count(p) < 2:
                            tile = game.tiles[q][p]
                            survive = np.prod([1 - reach[0][r][game.frames[q][r][p]] / 36
                                               for r in range(players) if r != q])
                            risk = 1 - survive if not shared_tile(tile) else 0.0
                            assert danger[q, tile - 1] == pytest.approx(risk), (q, p)
                            checked += 1
                me = state.current_player()
                features = encoder.encode(state, me)[base.shape[0]:].reshape(players, 52)
                for j in range(players):
                    seat = (me + j) % players
                    expected = [danger[seat, game.tiles[me][t] - 1] for t in range(1, 53)]
                    np.testing.assert_allclose(features[j], expected, rtol=1e-6, atol=1e-7)
            actions = state.legal_actions()
            state.apply_action(int(rng.choice(actions)))
    assert checked > 100
    assert encoder.shape == (base.shape[0] + players * 52,)
    np.testing.assert_array_equal(encoder.view_to_board_actions(1), base.view_to_board_actions(1))


@pytest.mark.parametrize("players", [2, 4])
def test_standing_features_are_the_searchs_game_value_in_relative_seats(players):
    """The ``standing`` features of a position are, in slot ``j`` the seat ``j`` places after
    the observer: first the value the ``evaluate`` hook gives that seat (what the search mixes
    into its leaves), then its standing over the standing's scale; after the features it is
    appended to (here ``capture_odds``), unchanged. Standings kept from earlier positions
    (:meth:`Standing.standings`) equal a fresh count."""
    game = nobles_game(players)
    encoder = make_encoder(game, ["capture_odds", "standing"])
    inner = make_encoder(game, ["capture_odds"])
    hooks = envs.game_hooks(game)
    standing = standing_of(game)
    rng = np.random.default_rng(players)
    state, checked = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            values, odds = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(values, p=odds)))
            continue
        me = state.current_player()
        obs = encoder.encode(state, me)
        np.testing.assert_array_equal(obs[:inner.shape[0]], inner.encode(state, me))
        seats = [(me + j) % players for j in range(players)]
        expected = np.concatenate([hooks.evaluate(state)[seats],
                                   np.array(standing.standings(state))[seats] / standing.scale])
        np.testing.assert_allclose(obs[inner.shape[0]:], expected, rtol=1e-6, atol=1e-6)
        # standings are kept per position: what is kept is what a fresh count gives
        assert standing.standings(state) == Standing(game).standings(state)
        checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 20
    assert encoder.shape == (inner.shape[0] + 2 * players,)


def forget_kept(encoder) -> None:
    """Empties what ``encoder`` and every encoder it wraps keep per position."""
    while encoder is not None:
        getattr(encoder, "_kept", {}).clear()
        encoder = getattr(encoder, "encoder", None)


@pytest.mark.parametrize("players", [2, 4])
def test_kept_parts_of_nobles_observations_equal_fresh_ones(players):
    """Nobles' encoder and features keep what depends on the pieces and scores alone, per
    observer, so that positions a roll apart (a search's leaves under one chance node) share
    it. Every seat's observation of every position of random games, of each roll's child at
    its chance nodes and of the position with other scores, equals one encoded with nothing
    kept."""
    game = nobles_game(players)
    kept, fresh = (make_encoder(game, ["capture_odds", "standing"]) for _ in range(2))
    rng = np.random.default_rng(players)

    def check(state) -> None:
        if rng.random() > 0.3 and not state.is_terminal():  # a sample: all takes seconds
            return
        position = state.to_dict()
        position["scores"] = [score + 5 * seat for seat, score in enumerate(position["scores"])]
        for seat in range(players):
            for other in (state, game.state_from_dict(position)):
                forget_kept(fresh)
                np.testing.assert_array_equal(kept.encode(other, seat), fresh.encode(other, seat))

    state = game.new_initial_state()
    while not state.is_terminal():
        check(state)
        if state.is_chance_node():
            outcomes, odds = zip(*state.chance_outcomes(), strict=True)
            for outcome in outcomes:
                child = state.clone()
                child.apply_action(outcome)
                check(child)
            state.apply_action(int(rng.choice(outcomes, p=odds)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    check(state)
    assert len(kept._kept) > 1 and len(kept.encoder.encoder._kept) > 1
