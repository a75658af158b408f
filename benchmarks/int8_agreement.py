"""Does 8-bit inference (``inference=onnx-int8``) play like the float network? Measured on the
trained zoo agents (zoo/*/policy.onnx), each against its own graph quantized as
``models.inference`` quantizes self-play's (same calibration positions, same quantizer).

    python benchmarks/int8_agreement.py                        # every zoo agent, agreement only
    python benchmarks/int8_agreement.py --agents blockade_lakeside_2p --match-pairs 50

Columns:
- ``decisions``: positions of games the float agent plays against itself (its zoo policy: search
  and temperature; the game's own chance draws), at each of which both searches run with the
  same generator state (so the same root noise).
- ``same move``: the share of those where the int8 search chooses the float search's move (for
  a sampling policy the same draw; games go on with the float move).
- ``same argmax``: the share where the network's most likely legal move is the same.
- ``|value| diff``: the median and largest difference of the mover's value, network alone.
- with ``--match-pairs`` (2-player agents): int8 against float from random openings, each
  played with the seats both ways, both searching with the policy's self-play budget: the
  int8 agent's score (win 1, draw 1/2) and its 95% interval; equal strength scores 50%.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np
import onnxruntime as ort
from rich.console import Console
from rich.table import Table

import envs
import zoo
from agents.network import choose_actions
from agents.onnx_file import OnnxNetwork, onnx_agent
from envs.core import sample_chance
from models.inference import calibration_observations, quantize

OPENING_PLIES = 6
"""Random plies that open each pair of match games."""


def zoo_file(name: str) -> Path:
    return zoo.policy_file(name, envs.make_game(zoo.metadata(name)["env_config"]))


def int8_twin(network: OnnxNetwork) -> OnnxNetwork:
    """The same exported network with its graph quantized (the ``OnnxNetwork`` checks ran on
    the float graph when it was loaded)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    twin = OnnxNetwork(network.path, network.game)
    twin.session = ort.InferenceSession(
        quantize(Path(network.path).read_bytes(), calibration_observations(twin.encoder)),
        options, providers=["CPUExecutionProvider"])
    return twin


def agreement(name: str, games: int, seed: int) -> dict:
    agent = onnx_agent(zoo_file(name), None)
    float_net = OnnxNetwork(zoo_file(name))
    int8_net = int8_twin(float_net)
    game, acting = float_net.game, agent.acting
    same_move, same_argmax, value_diffs = [], [], []
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            player = state.current_player()
            (logits, values), (q_logits, q_values) = (net.evaluate([state])
                                                      for net in (float_net, int8_net))
            legal = np.flatnonzero(state.legal_actions_mask())
            same_argmax.append(legal[np.argmax(logits[0][legal])]
                               == legal[np.argmax(q_logits[0][legal])])
            value_diffs.append(abs(values[0][player] - q_values[0][player]))
            draw = int(rng.integers(2**31))
            moves = [choose_actions([state], net.evaluate, [np.random.default_rng(draw)],
                                    acting)[0] for net in (float_net, int8_net)]
            same_move.append(moves[0] == moves[1])
            state.apply_action(moves[0])
    return {"decisions": len(same_move), "same move": float(np.mean(same_move)),
            "same argmax": float(np.mean(same_argmax)),
            "value diff": (float(np.median(value_diffs)), float(np.max(value_diffs)))}


def match_score(name: str, pairs: int, seed: int) -> tuple[float, float, float]:
    """The int8 agent's mean score in 2-player games against the float one, and a 95% normal
    interval: ``pairs`` openings of :data:`OPENING_PLIES` random moves (searches without noise
    are deterministic, so without them a match repeats two games), each played with the seats
    both ways; both search with the policy's self-play budget (``search.simulations``)."""
    float_net = OnnxNetwork(zoo_file(name))
    int8_net = int8_twin(float_net)
    game = float_net.game
    if game.num_players != 2:
        raise ValueError(f"{name}: the match is for 2-player agents")
    acting = onnx_agent(zoo_file(name), None).acting
    acting = dataclasses.replace(acting, simulations=acting.search.simulations)
    scores = []
    for pair in range(pairs):
        rng = np.random.default_rng([seed, pair])
        opening = game.new_initial_state()
        for _ in range(OPENING_PLIES):
            if opening.is_chance_node():
                opening.apply_action(sample_chance(opening, rng))
            elif not opening.is_terminal():
                legal = np.flatnonzero(opening.legal_actions_mask())
                opening.apply_action(int(legal[rng.integers(len(legal))]))
        for int8_seat in (0, 1):
            state, chance = opening.clone(), np.random.default_rng([seed, pair, 1])
            agent_rng = np.random.default_rng([seed, pair, 2])
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(sample_chance(state, chance))
                    continue
                net = int8_net if state.current_player() == int8_seat else float_net
                state.apply_action(choose_actions([state], net.evaluate, [agent_rng], acting)[0])
            returns = state.returns()
            scores.append(0.5 if returns[0] == returns[1] else float(returns[int8_seat] > 0))
    mean = float(np.mean(scores))
    half = 1.96 * float(np.std(scores)) / np.sqrt(len(scores))
    return mean, mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=zoo.names())
    parser.add_argument("--games", type=int, default=4, help="self-play games per agent")
    parser.add_argument("--match-pairs", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table = Table(title=f"int8 against float32, the zoo agents' own policies, {args.games} games "
                        "each")
    columns = ["agent", "decisions", "same move", "same argmax", "|value| diff median / max"]
    if args.match_pairs:
        columns.append(f"int8 score vs float, {2 * args.match_pairs} games [95%]")
    for column in columns:
        table.add_column(column, justify="left" if column == "agent" else "right")
    for name in args.agents:
        row = agreement(name, args.games, args.seed)
        cells = [name, str(row["decisions"]), f"{row['same move']:.1%}",
                 f"{row['same argmax']:.1%}",
                 f"{row['value diff'][0]:.4f} / {row['value diff'][1]:.3f}"]
        if args.match_pairs:
            mean, low, high = match_score(name, args.match_pairs, args.seed)
            cells.append(f"{mean:.1%} [{low:.1%}, {high:.1%}]")
        table.add_row(*cells)
    Console(width=130).print(table)


if __name__ == "__main__":
    main()
