"""Where does a trained network lose with 2-4 players? A diagnosis of any checkpoint or zoo entry.

    python docs/experiments/nplayer_diagnosis.py zoo:nobles_4p \
        --env "{name: nobles, num_players: 4}"
    python docs/experiments/nplayer_diagnosis.py \
        checkpoint:outputs/train/nobles/RUN/checkpoints/last.pt \
        --env "{name: nobles, num_players: 4}" --games 200 --sims 200 --workers 2

One agent (the network) against copies of ``--opponent`` (default ``heuristic``) in every other
seat, seats rotated, as the evaluation targets are measured. Printed as markdown tables:

1. Strength: win share of the network alone (its policy, ``sims=0``) and of the network with a
   noise-free search of ``--sims`` simulations, each with its 95% Wilson interval of wins; with
   ``--uniform-priors`` also that search with every legal move's prior equal (the network's
   values kept, its policy ignored: does the policy help the search or mislead it?).
2. Value calibration: on every decision position of the network-alone games, the network's value
   of each seat turned into a predicted win share (returns are affine in the win share: a sole
   winner +1, the rest -1/(n-1), so share = (value + 1/(n-1)) * (n-1)/n), against the share that
   seat really got in that game; by game phase (thirds of the game's decisions) for the agent's
   own seat and the opponents' seats, and by turn-order seat. Brier skill = 1 - Brier score over
   that of always predicting 1/n: > 0 means the values know more than the seat count. Beside
   it, how well the values rank the seats (the correlation of value and observed share), and
   the same for the game's own evaluation (its ``evaluate`` hook), where it has one.
3. Reliability: positions binned by predicted share, the observed share in each bin.
4. Policy: on ``--positions`` of the agent's own decisions (more than one legal move), top-1
   agreement of the network's policy with its own ``--sims`` search (with ``--search-options``,
   e.g. ``game_value_weight=0.5``) and with the opponent agent's choice, and the root value of
   that search against the network's value (Brier skill of both on the same positions).

Run it from the repository root with the checkout first on the path (``PYTHONPATH=.``), so
that it measures this checkout's code and not another installed copy.

Everything is seeded (``--seed``): the same arguments give the same figures.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import yaml

import envs
from agents import make_agent
from arena.backends import Venue
from arena.match import play_match
from arena.records import replay
from arena.stats import wilson_interval
from search.puct import search

PHASES = ("early", "middle", "late")


def share_of(values: np.ndarray, n: int) -> np.ndarray:
    """Win share implied by returns-scale values (sole win +1, loss -1/(n-1)); clipped."""
    return np.clip((values + 1.0 / (n - 1)) * (n - 1) / n, 0.0, 1.0)


def with_options(spec: str, options: str) -> str:
    """``zoo:NAME`` or ``checkpoint:PATH`` with spec options appended."""
    return f"{spec}:{options}"


def uniform_priors(evaluate):
    """``evaluate`` with every logit 0: the search's priors uniform over the legal moves."""
    def flat(states):
        logits, values = evaluate(states)
        return np.zeros_like(logits), values
    return flat


def play(env_config, spec, opponent, n, games, seed, venue):
    lineup = [spec] + [opponent] * (n - 1)
    result = play_match(env_config, lineup, games, seed, record=True, venue=venue)
    return result, result.summaries[0]


def positions(result, agent_name):
    """Every decision position of the match's games: (state, mover, phase, agent seat, the
    game's observed win shares per seat)."""
    rows = []
    for game in result.games:
        record = game.record
        n = len(record.returns)
        shares = share_of(np.asarray(record.returns, dtype=np.float64), n)
        agent_seat = record.players.index(agent_name)
        decisions = [s for s in replay(record) if s.current_player() >= 0]
        for k, state in enumerate(decisions):
            phase = min(2, 3 * k // max(len(decisions), 1))
            rows.append((state, state.current_player(), phase, agent_seat, shares))
    return rows


def evaluate_values(evaluate, states, batch=256):
    values = [evaluate(states[i:i + batch])[1] for i in range(0, len(states), batch)]
    return np.concatenate(values)


def brier_skill(predicted: np.ndarray, observed: np.ndarray, n: int) -> float:
    base = ((1.0 / n - observed) ** 2).mean()
    return float(1.0 - ((predicted - observed) ** 2).mean() / base) if base > 0 else float("nan")


def strength_table(rows):
    print("| agent (one seat against the opponent in every other) | games | W-D-L | wins % "
          "[95% CI] | win share | ms/move |")
    print("|---|---|---|---|---|---|")
    for label, summary in rows:
        low, high = wilson_interval(summary.wins, summary.games)
        print(f"| {label} | {summary.games} | {summary.wins}-{summary.draws}-{summary.losses} | "
              f"{100 * summary.win_rate:.1f} [{100 * low:.1f}, {100 * high:.1f}] | "
              f"{100 * summary.win_share:.1f}% | {1000 * summary.seconds_per_move:.1f} |")
    print()


def calibration_tables(rows, values, game):
    n = game.num_players
    movers = np.array([r[1] for r in rows])
    phases = np.array([r[2] for r in rows])
    agent_seats = np.array([r[3] for r in rows])
    observed = np.stack([r[4] for r in rows])  # [P, n] per absolute seat
    predicted = share_of(values, n)
    seats = np.arange(n)
    is_agent = seats[None, :] == agent_seats[:, None]
    print(f"Value calibration on {len(rows)} decision positions (predicted / observed win "
          "share, Brier skill):\n")
    print("| phase | agent's seat: predicted | observed | skill | opponents' seats: predicted | "
          "observed | skill |")
    print("|---|---|---|---|---|---|---|")
    for phase in (*range(3), None):
        chosen = np.ones(len(rows), bool) if phase is None else phases == phase
        cells = []
        for mask in (is_agent, ~is_agent):
            m = mask & chosen[:, None]
            p, o = predicted[m], observed[m]
            cells.append(f"{p.mean():.3f} | {o.mean():.3f} | {brier_skill(p, o, n):+.3f}")
        print(f"| {PHASES[phase] if phase is not None else 'all'} | {' | '.join(cells)} |")
    print()
    print("| turn-order seat | predicted (when it is the agent) | observed | predicted "
          "(an opponent) | observed | value of the mover's own seat: predicted | observed |")
    print("|---|---|---|---|---|---|---|")
    for s in seats:
        own = movers == s
        cells = []
        for mask in (agent_seats == s, agent_seats != s):
            cells.append(f"{predicted[mask, s].mean():.3f} | {observed[mask, s].mean():.3f}")
        cells.append(f"{predicted[own, s].mean():.3f} | {observed[own, s].mean():.3f}")
        print(f"| {s} | {' | '.join(cells)} |")
    print()
    game_value = envs.game_hooks(game).evaluate
    judged = (np.stack([game_value(r[0]) for r in rows]) if game_value is not None else None)
    print("| phase | correlation of value and observed share: network | game's evaluate hook |")
    print("|---|---|---|")
    for phase in (*range(3), None):
        m = np.ones(len(rows), bool) if phase is None else phases == phase
        cells = [f"{np.corrcoef(predicted[m].ravel(), observed[m].ravel())[0, 1]:+.3f}",
                 "-" if judged is None
                 else f"{np.corrcoef(judged[m].ravel(), observed[m].ravel())[0, 1]:+.3f}"]
        print(f"| {PHASES[phase] if phase is not None else 'all'} | {' | '.join(cells)} |")
    print()
    edges = np.linspace(0.0, 1.0, 6)
    print("| predicted share | seat-positions | observed share |")
    print("|---|---|---|")
    p, o = predicted.ravel(), observed.ravel()
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        m = (p >= low) & ((p < high) | (high == 1.0))
        if m.any():
            print(f"| {low:.1f}-{high:.1f} | {m.sum()} | {o[m].mean():.3f} |")
    print()


def policy_table(rows, network, game, sims, opponent, count, seed):
    """``network``: the searched agent (its acting search, with any --search-options)."""
    rng = np.random.default_rng(seed)
    own = [r for r in rows if r[1] == r[3] and len(r[0].legal_actions()) > 1]
    chosen = [own[i] for i in sorted(rng.choice(len(own), min(count, len(own)),
                                                replace=False))]
    states = [r[0] for r in chosen]
    logits, net_values = network.evaluate(states)
    legal = [np.flatnonzero(s.legal_actions_mask()) for s in states]
    net_choice = np.array([lg[np.argmax(lg_row[lg])] for lg, lg_row in zip(legal, logits,
                                                                           strict=True)])
    config = dataclasses.replace(network.acting.search, simulations=sims)
    found = search(states, network.evaluate, config,
                   [np.random.default_rng([seed, i]) for i in range(len(states))],
                   add_noise=False, game_value=network.game_value)
    search_choice = np.array([r.selected if r.selected is not None
                              else r.actions[np.argmax(r.visits)] for r in found])
    other = make_agent(opponent, game)
    opponent_choice = []
    for i, state in enumerate(states):
        other.reset(game, state.current_player(), seed + i)
        opponent_choice.append(other.act(state.clone()))
    opponent_choice = np.array(opponent_choice)
    phases = np.array([r[2] for r in chosen])
    n = game.num_players
    observed = np.stack([r[4] for r in chosen])
    search_values = np.stack([r.value for r in found])
    print(f"Policy on {len(states)} of the agent's own decisions (more than one legal move):\n")
    print(f"| phase | positions | network = its {sims}-sim search | network = {opponent} | "
          f"search = {opponent} | mean abs(search value - network value), mover |")
    print("|---|---|---|---|---|---|")
    movers = np.array([s.current_player() for s in states])
    gap = np.abs(search_values[np.arange(len(states)), movers]
                 - net_values[np.arange(len(states)), movers])
    for phase in (*range(3), None):
        m = np.ones(len(states), bool) if phase is None else phases == phase
        if not m.any():
            continue
        print(f"| {PHASES[phase] if phase is not None else 'all'} | {m.sum()} | "
              f"{(net_choice[m] == search_choice[m]).mean():.3f} | "
              f"{(net_choice[m] == opponent_choice[m]).mean():.3f} | "
              f"{(search_choice[m] == opponent_choice[m]).mean():.3f} | {gap[m].mean():.3f} |")
    print()
    print(f"Brier skill on these positions, all seats: network value "
          f"{brier_skill(share_of(net_values, n), observed, n):+.3f}, {sims}-sim search's root "
          f"value {brier_skill(share_of(search_values, n), observed, n):+.3f}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", help="zoo:NAME or checkpoint:PATH (no options)")
    parser.add_argument("--env", required=True, help='the env config, e.g. "{name: nobles, '
                        'num_players: 4}"')
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--search-options", default="",
                        help="more options of the searched agent, e.g. game_value_weight=0.5")
    parser.add_argument("--uniform-priors", action="store_true",
                        help="also play the search with uniform priors (in one process)")
    parser.add_argument("--positions", type=int, default=400,
                        help="decisions for the policy table; 0 = no policy table")
    parser.add_argument("--seed", type=int, default=12346)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    env_config = yaml.safe_load(args.env)
    game = envs.make_game(env_config)
    n = game.num_players
    network = make_agent(args.spec, game)
    alone_spec = with_options(args.spec, "sims=0")
    searched_spec = with_options(args.spec, ",".join(filter(None, [f"sims={args.sims}",
                                                                  args.search_options])))
    venue = Venue(workers=args.workers)
    alone, alone_summary = play(env_config, alone_spec, args.opponent, n, args.games,
                                args.seed, venue)
    _, searched_summary = play(env_config, searched_spec, args.opponent, n, args.games,
                               args.seed, venue)
    print(f"## {args.spec}: {game.name}, {n} players, against {args.opponent}, "
          f"{args.games} games (seed {args.seed})\n")
    strength = [(f"`{alone_spec}` (the network alone)", alone_summary),
                (f"`{searched_spec}`", searched_summary)]
    if args.uniform_priors:
        flat = make_agent(searched_spec, game)
        flat.evaluate = uniform_priors(flat.evaluate)  # forks (one per game) share it
        _, flat_summary = play(env_config, flat, args.opponent, n, args.games, args.seed,
                               Venue(batch_games=16))
        strength.append((f"`{searched_spec}`, uniform priors", flat_summary))
    strength_table(strength)
    rows = positions(alone, alone_spec)
    values = evaluate_values(network.evaluate, [r[0] for r in rows])
    calibration_tables(rows, values, game)
    if args.positions:
        policy_table(rows, make_agent(searched_spec, game), game, args.sims, args.opponent,
                     args.positions, args.seed)


if __name__ == "__main__":
    main()
