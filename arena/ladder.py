"""A rated ladder (``evaluate.py schedule=ladder``): every agent of a list on the one Elo scale
(arena/stats.py, random = 0), from blocks of games between pairs chosen where they inform most.

The plan, deterministic and the same on every resume: agents join in the order listed. An
agent's first block is against the agent listed before it (so every agent is linked to the
others); then it plays ``ladder_blocks`` more blocks, each against the earlier agent whose
predicted score against it is nearest to even, discounted by the games the two have played
already (``p (1 - p) / (1 + blocks played)``, from the ratings fitted so far). A block is
``games`` games of one lineup, seats rotated; with more than two seats the lineup is one agent
against copies of the other, the two sides taking turns block by block. Each block's seed comes
from the ladder's seed and the block's number.

So a ladder resumed in its folder plays only the games missing, and a ladder given more agents
at the end of the list plays only the blocks of the new ones (``resume=<folder>`` with the
longer ``agents``); ``ladder.json`` holds every game.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from agents import parse_spec
from arena.backends import Venue
from arena.game import GameResult, lineup_names
from arena.match import MatchResult, match_result, play_match
from arena.stats import Rating, base_name, rate, scale

FORMAT = "boardgame-rl-ladder"
VERSION = 1


@dataclass
class Block:
    """One block of the plan: its lineup (agent specs, one per seat) and match seed."""

    lineup: list[str]
    seed: int


def block_seed(seed: int, number: int) -> int:
    return int(np.random.SeedSequence([seed, 7, number]).generate_state(1)[0])


def block_lineup(agent: str, other: str, num_players: int, turn: int) -> list[str]:
    """The lineup of a block between two agents: with two seats both play it (seats rotate);
    with more, one against copies of the other, the sides taking turns by ``turn``."""
    single, copied = (agent, other) if turn % 2 == 0 else (other, agent)
    return [single] + [copied] * (num_players - 1)


def pair_key(lineup: Sequence[str]) -> frozenset:
    return frozenset(lineup)


def next_opponent(agent: str, earlier: Sequence[str], matches: Sequence[MatchResult],
                  blocks_played: dict) -> str:
    """The earlier agent whose block with ``agent`` informs most now (module docstring)."""
    ratings = {r.name: r.rating for r in rate(matches, bootstrap=0)} if matches else {}

    def value(other: str) -> float:
        difference = ratings.get(agent, 0.0) - ratings.get(other, 0.0)
        p = 1.0 / (1.0 + 10 ** (-difference / 400))
        return p * (1 - p) / (1 + blocks_played.get(frozenset((agent, other)), 0))

    return max(earlier, key=value)  # max keeps the first of equals: listed order


def plan_step(agents: Sequence[str], blocks: Sequence[Block], matches: Sequence[MatchResult],
              num_players: int, per_agent: int, seed: int) -> Block | None:
    """The block that follows ``blocks`` (played as ``matches``), or None when the plan is
    done."""
    played: dict = {}
    for block in blocks:
        played[pair_key(block.lineup)] = played.get(pair_key(block.lineup), 0) + 1
    done = len(blocks)
    for k, agent in enumerate(agents[1:], start=1):
        own = 1 + per_agent  # its first block and its adaptive ones
        if done >= own:
            done -= own
            continue
        if done == 0:
            other = agents[k - 1]
        else:
            other = next_opponent(agent, agents[:k], matches, played)
        turn = played.get(frozenset((agent, other)), 0)
        return Block(block_lineup(agent, other, num_players, turn), block_seed(seed, len(blocks)))
    return None


@dataclass
class Ladder:
    env_config: dict
    agents: list[str]
    settings: dict
    blocks: list[Block]
    matches: list[MatchResult]
    ratings: list[Rating]
    partial: bool = False

    def rows(self) -> list[dict]:
        """Per agent: its rating and interval, games and milliseconds per move."""
        games = {name: 0 for name in self.agents}
        seconds = {name: 0.0 for name in self.agents}
        moves = {name: 0 for name in self.agents}
        for match in self.matches:
            for index, name in enumerate(match.names):
                agent = base_name(name)
                games[agent] += len(match.games)
                seconds[agent] += sum(g.think_seconds[index] for g in match.games)
                moves[agent] += sum(g.moves[index] for g in match.games)
        by_name = {r.name: r for r in self.ratings}
        return [{"agent": name, "rating": by_name[name].rating if name in by_name else None,
                 "low": by_name[name].low if name in by_name else None,
                 "high": by_name[name].high if name in by_name else None,
                 "games": games[name],
                 "ms_per_move": 1000 * seconds[name] / moves[name] if moves[name] else 0.0}
                for name in sorted(self.agents, key=lambda a: -(by_name[a].rating
                                                               if a in by_name else -math.inf))]


def game_data(game: GameResult) -> dict:
    return {"index": game.index, "seats": game.seats, "returns": game.returns,
            "turns": game.turns, "truncated": game.truncated,
            "think_seconds": game.think_seconds, "moves": game.moves}


def game_from(data: dict) -> GameResult:
    return GameResult(data["index"], list(data["seats"]), [float(r) for r in data["returns"]],
                      data["turns"], data["truncated"], data["think_seconds"], data["moves"])


def settings_of(games: int, per_agent: int, seed: int, agent_options: dict) -> dict:
    """What fixes a ladder's plan and games beside its env and agents: a resumed ladder must
    share it."""
    return {"games": games, "ladder_blocks": per_agent, "seed": seed,
            "agent_options": agent_options}


def load(path: Path, env_config: dict, agents: Sequence[str], settings: dict
         ) -> tuple[list[Block], list[list[GameResult]]]:
    """The blocks and games of the ladder in ``path`` (a folder or its ladder.json), checked to
    be of this game and settings, its agents the first of ``agents``: a ``ValueError`` saying
    what differs."""
    path = path / "ladder.json" if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(f"resume: no ladder.json at {path}")
    try:
        stored = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"resume: {path} is not a ladder's ladder.json ({error})") from None
    if stored.get("format") != FORMAT or stored.get("version") != VERSION:
        raise ValueError(f"resume: {path} is not a {FORMAT} file of version {VERSION}")
    if stored["env"] != env_config:
        raise ValueError(f"resume: the ladder at {path} is of env {stored['env']}, not "
                         f"{env_config}")
    differ = [key for key in settings if stored["settings"].get(key) != settings[key]]
    if differ:
        raise ValueError("resume: the ladder was played with other " + ", ".join(
            f"{key}={stored['settings'].get(key)!r} (now {settings[key]!r})" for key in differ))
    if list(agents[:len(stored["agents"])]) != stored["agents"]:
        raise ValueError(f"resume: agents must start with the ladder's {stored['agents']} "
                         "(new agents go at the end)")
    return ([Block(b["lineup"], b["seed"]) for b in stored["blocks"]],
            [[game_from(g) for g in b["games"]] for b in stored["blocks"]])


def run_ladder(env_config: dict, agents: Sequence[str], built: dict, num_players: int,
               games: int, per_agent: int, seed: int, venue: Venue, agent_options: dict,
               out_dir: Path, resume: Path | None = None,
               say: Callable[[str], None] = print,
               progress: Callable[[GameResult], None] | None = None) -> Ladder:
    """Play the ladder's plan (or what of it a resumed one lacks) and write its files into
    ``out_dir``. ``built``: the agents of each spec (arena.tournament.build_agents). A Ctrl-C
    writes what was played, marked partial."""
    settings = settings_of(games, per_agent, seed, agent_options)
    if len(agents) < 2:
        raise ValueError(f"a ladder needs at least 2 agents, got {len(agents)}")
    blocks, stored = load(resume, env_config, agents, settings) if resume else ([], [])
    matches: list[MatchResult] = []
    partial = False
    try:
        while True:
            block = plan_step(agents, blocks[:len(matches)], matches, num_players, per_agent,
                              seed)
            if block is None:
                break
            number = len(matches)
            if number < len(blocks) and blocks[number] != block:
                raise ValueError(f"resume: block {number} of the ladder was {blocks[number]}, "
                                 f"the plan now says {block}")
            played = stored[number] if number < len(stored) else []
            if len(played) < games:
                say(f"block {number}: {' vs '.join(block.lineup)}, "
                    f"{games - len(played)} games")
            taken: dict[str, int] = {}
            seated = []
            for spec in block.lineup:
                seated.append(built[spec][taken.get(spec, 0)])
                taken[spec] = taken.get(spec, 0) + 1
            partial_games = list(played)

            def keep(result: GameResult, partial_games=partial_games) -> None:
                partial_games.append(result)
                if progress:
                    progress(result)

            try:
                match = play_match(env_config, block.lineup, games, block.seed, agents=seated,
                                   agent_options=agent_options, played=played, progress=keep,
                                   venue=venue)
            except KeyboardInterrupt:
                if partial_games:
                    blocks[number:number + 1] = [block]
                    matches.append(match_result(env_config, lineup_names(block.lineup),
                                                sorted(partial_games, key=lambda g: g.index)))
                raise
            blocks[number:number + 1] = [block]
            matches.append(match)
    except KeyboardInterrupt:
        partial = True
        say(f"interrupted: writing the {sum(len(m.games) for m in matches)} games played so "
            "far, marked partial (resume=<this folder> continues)")
    ladder = Ladder(env_config, list(agents), settings, blocks[:len(matches)], matches,
                    rate(matches) if matches else [], partial)
    write(ladder, out_dir)
    return ladder


def write(ladder: Ladder, out_dir: Path) -> dict[str, Path]:
    """ladder.json (every game, the ratings), ladder.csv (the ratings) and ladder.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"json": out_dir / "ladder.json", "csv": out_dir / "ladder.csv"}
    rows = ladder.rows()
    files["json"].write_text(json.dumps({
        "format": FORMAT, "version": VERSION, "partial": ladder.partial,
        "env": ladder.env_config, "settings": ladder.settings, "agents": ladder.agents,
        "scale": scale(rows), "ratings": rows,
        "blocks": [{**asdict(block), "games": [game_data(g) for g in match.games]}
                   for block, match in zip(ladder.blocks, ladder.matches, strict=True)],
    }, indent=1))
    with open(files["csv"], "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]) if rows else ["agent"])
        writer.writeheader()
        writer.writerows(rows)
    return files


def family(spec: str) -> str:
    """What a spec is without its search budget: ``zoo:nobles_2p:sims=16`` -> ``zoo:nobles_2p``,
    ``mcts:simulations=200`` -> ``mcts`` (the other options kept)."""
    name, options = parse_spec(spec)
    label = ":".join([name, *(str(options.pop(key)) for key in ("path", "name")
                              if key in options)])
    rest = {k: v for k, v in options.items() if k not in ("sims", "simulations")}
    return label + ("(" + ",".join(f"{k}={v}" for k, v in sorted(rest.items())) + ")"
                    if rest else "")


def budget(spec: str) -> str | None:
    _, options = parse_spec(spec)
    value = options.get("sims", options.get("simulations"))
    return None if value is None else str(value)


def write_plot(rows: Sequence[dict], path: Path, title: str) -> Path:
    """Rating against milliseconds per move, one line per agent family across its search
    budgets (the search-scaling curve), each point with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5))
    families: dict[str, list[dict]] = {}
    for row in rows:
        if row["rating"] is not None:
            families.setdefault(family(row["agent"]), []).append(row)
    for name, members in sorted(families.items()):
        members.sort(key=lambda r: max(r["ms_per_move"], 1e-3))
        x = [max(r["ms_per_move"], 1e-3) for r in members]
        y = [r["rating"] for r in members]
        error = [[r["rating"] - r["low"] for r in members],
                 [r["high"] - r["rating"] for r in members]]
        axes.errorbar(x, y, yerr=error, marker="o", capsize=3, label=name)
        for r, xi, yi in zip(members, x, y, strict=True):
            if budget(r["agent"]) is not None:
                axes.annotate(budget(r["agent"]), (xi, yi), textcoords="offset points",
                              xytext=(4, 4), fontsize=8)
    axes.set_xscale("log")
    axes.set_xlabel("milliseconds per move (log scale)")
    axes.set_ylabel(f"{scale(rows)}, 95% interval")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
