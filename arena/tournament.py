"""An evaluation run, as ``evaluate.py`` drives it: a typed config, the schedule of lineups, the
matches with a live progress bar and tables, and every output (JSON, CSV, chart, records, GIFs,
W&B)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import numpy as np
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

import envs
from agents import make_agent
from agents.mcts import OPTIONS as MCTS_OPTIONS
from arena import ladder
from arena.backends import Venue, set_torch_threads
from arena.game import GameResult, lineup_names, options_for
from arena.match import MatchResult, match_result, play_match
from arena.media import best_effort, import_wandb
from arena.panel import panel
from arena.records import render_gif, save_records
from arena.report import (
    ProgressLine,
    ladder_table,
    legend,
    panel_table,
    ratings_table,
    report_console,
    results_table,
    short_labels,
    write_chart,
    write_csv,
    write_json,
)
from arena.stats import base_name, first_places, rate
from typedconfig import from_mapping

SCHEDULES = ("round_robin", "versus", "ladder", "panel")
LOG_EVERY_S = 30.0
"""Seconds between progress lines when the output is not a terminal."""


@dataclass
class EvalConfig:
    """``evaluate.py``'s settings beside ``env`` and ``logger`` (presets: configs/eval/)."""

    # agent specs: random | heuristic | mcts | checkpoint:PATH | onnx:PATH | zoo:NAME, with
    # options inline: 'agents=[heuristic,"mcts:simulations=1000","onnx:PATH:sims=200"]'
    agents: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    # games per lineup (rounded up to a multiple of the player count)
    games: Annotated[int, ">= 1"] = 200
    # one seed fixes every game: dice and every agent's choices
    seed: int = 0
    # worker processes; the results are identical for any number
    workers: Annotated[int, ">= 1"] = 1
    # where workers > 1 play: processes (on this machine) | ray (Ray tasks: a Ray of `workers`
    # CPUs here, or every CPU of the cluster at ray_address; pip install -e '.[ray]')
    backend: str = "processes"
    # backend=ray: null = start a Ray here | auto | ray://host:port
    ray_address: str | None = None
    # torch threads for network agents, in each process that plays (small batches: 1 is
    # fastest, and robust when other jobs share the cores)
    torch_threads: Annotated[int, ">= 1"] = 1
    # games played at once per process when an agent has a network: its moves in all of them
    # go through the network in one batch; the games are the same as one at a time
    batch_games: Annotated[int, ">= 1"] = 32
    # round_robin: every set of num_players different agents | versus: each agent against
    # num_players - 1 copies of `opponent` | ladder: every agent rated on one scale from blocks
    # of `games` games between pairs chosen where they inform most (arena/ladder.py) | panel:
    # each agent against every member of the robustness panel (arena/panel.py)
    schedule: str = "round_robin"
    # the field agent of schedule=versus
    opponent: str = "random"
    # schedule=ladder: blocks each agent plays after its first one, against the opponents that
    # inform most
    ladder_blocks: Annotated[int, ">= 0"] = 3
    # keyword options per agent name or whole spec (null = the agent's default), e.g.
    # agent_options.mcts.simulations=500 (mcts: agents/mcts.py; a whole spec's entry needs +)
    agent_options: dict = field(default_factory=lambda: {"mcts": dict.fromkeys(MCTS_OPTIONS)})
    # write every game (positions + actions, JSON lines) to games.jsonl
    save_records: bool = False
    # game numbers (within each lineup) to render as animated GIFs
    gif_games: list[int] = field(default_factory=list)
    # milliseconds per GIF frame (the last frame stays 2 s)
    gif_frame_ms: int = 300
    # write ratings.png: ratings with 95% intervals (and the 2-player score heatmap)
    chart: bool = True
    # a stopped (partial) evaluation's folder or results.json, or a finished one with more
    # games= now: its games are kept and only the missing ones played (same env and settings)
    resume: str | None = None

    @classmethod
    def from_dict(cls, values: dict) -> EvalConfig:
        """The typed config of ``values``: a key it lacks, or a value of the wrong type or
        range, is one ``ValueError`` naming it."""
        config = from_mapping(cls, values)
        config.agents = [str(a) for a in config.agents]
        config.check()
        return config

    def venue(self) -> Venue:
        return Venue(self.workers, self.batch_games, self.backend, self.ray_address,
                     self.torch_threads)

    def check(self) -> None:
        if not self.agents:
            raise ValueError("agents is empty; give e.g. agents=[heuristic,random]")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"agents lists an agent twice: {self.agents}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, "
                             f"got {self.schedule!r}")
        self.venue()


def lineups(config: EvalConfig, game) -> list[list[str]]:
    """``round_robin``: every set of ``num_players`` different agents; ``versus``: every agent
    against ``num_players - 1`` copies of ``opponent``; ``panel``: every agent against copies of
    each panel member; ``ladder``: one lineup per pair of agents and side (the ladder plays the
    ones its plan picks)."""
    num_players = game.num_players
    if config.schedule == "versus":
        return [[agent] + [config.opponent] * (num_players - 1) for agent in config.agents]
    if config.schedule == "panel":
        return [[agent] + [member] * (num_players - 1) for agent in config.agents
                for member in panel(game, judged=config.agents)]
    if config.schedule == "ladder":
        if len(config.agents) < 2:
            raise ValueError(f"a ladder needs at least 2 agents, got {len(config.agents)}")
        if config.games < 2 * num_players:
            raise ValueError(f"games={config.games} is too few for a rating interval: a ladder "
                             f"block needs at least two rotations of the seats "
                             f"({2 * num_players} games)")
        return [[a] + [b] * (num_players - 1)
                for a, b in itertools.permutations(config.agents, 2)]
    if len(config.agents) < num_players:
        raise ValueError(f"a round robin of a {num_players}-player game needs at least "
                         f"{num_players} agents, got {len(config.agents)}; add agents or use "
                         "schedule=versus")
    return [list(c) for c in itertools.combinations(config.agents, num_players)]


def build_agents(env_config: dict, config: EvalConfig) -> dict[str, list]:
    """Every agent of the evaluation, built once before any game and then played in each of
    its lineups: ``agents[spec][k]`` sits in the ``k``-th seat that ``spec`` holds in a lineup
    (``versus`` seats its opponent several times, each seat its own instance). Bad names,
    options, missing checkpoints, checkpoints of another game and a schedule the game cannot
    hold fail here, with their one-line error."""
    game = envs.make_game(env_config)

    def build(spec: str):
        return make_agent(spec, game, **options_for(spec, config.agent_options))

    agents: dict[str, list] = {}
    for lineup in lineups(config, game):
        for spec in dict.fromkeys(lineup):
            built = agents.setdefault(spec, [])
            built += [build(spec) for _ in range(lineup.count(spec) - len(built))]
    return agents


def lineup_agents(lineup: Sequence[str], agents: dict[str, list]) -> list:
    """The built agents that play ``lineup``, one per seat (see :func:`build_agents`)."""
    taken: dict[str, int] = {}
    seated = []
    for spec in lineup:
        seated.append(agents[spec][taken.get(spec, 0)])
        taken[spec] = taken.get(spec, 0) + 1
    return seated


RESUME_SETTINGS = ("agents", "games", "seed", "schedule", "opponent", "agent_options")
"""Settings that fix which games an evaluation plays: a resumed one must share them."""


def resumed_games(env_config: dict, config: EvalConfig) -> dict[tuple[str, ...], list]:
    """The games of the stopped evaluation ``config.resume`` names (its ``results.json`` or
    the folder holding it), per lineup (its names, as :func:`arena.game.lineup_names` gives
    them): every game is seeded by its number alone, so these are the games the resumed run
    would play, and only the others need playing. The stored file must be partial or, to extend
    a finished evaluation, have fewer games than ``config.games``; of the same game and rules;
    and share the other settings in ``RESUME_SETTINGS``. Anything else is a ``ValueError``
    saying what differs. Empty without ``resume``."""
    if config.resume is None:
        return {}
    if config.schedule == "ladder":  # arena/ladder.py's file: checked here, read when played
        n = envs.make_game(env_config).num_players
        ladder.load(Path(config.resume), env_config, config.agents, ladder.settings_of(
            math.ceil(config.games / n) * n, config.ladder_blocks, config.seed,
            config.agent_options))
        return {}
    path = Path(config.resume)
    path = path / "results.json" if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(f"resume: no results.json at {config.resume}")
    if config.save_records or config.gif_games:
        raise ValueError("resume cannot write records or GIFs: results.json holds no moves of "
                         "the games played before; resume without save_records and gif_games")
    try:
        stored = json.loads(path.read_text())
        stored_env, settings, games = stored["env"], stored["settings"], stored["games"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise ValueError(f"resume: {path} is not an evaluation's results.json ({error})") \
            from None
    settings = {**dataclasses.asdict(EvalConfig(agents=[])), **settings}
    if not stored.get("partial") and config.games <= settings["games"]:
        raise ValueError(f"resume: {path} holds a finished evaluation (not partial) of "
                         f"{settings['games']} games; nothing to resume (a larger games= "
                         "extends it)")
    if stored_env != env_config:
        raise ValueError(f"resume: {path} was played with env {stored_env}, not {env_config}")
    differ = [key for key in RESUME_SETTINGS if settings[key] != getattr(config, key)
              and not (key == "games" and settings[key] < config.games)]
    if differ:
        raise ValueError("resume: the stopped evaluation had other " + ", ".join(
            f"{key}={settings[key]!r} (now {getattr(config, key)!r})" for key in differ))
    lineup_games: dict[tuple[str, ...], list] = {}
    for game in games:
        names = list(game["lineup"])
        n = len(names)
        lineup_games.setdefault(tuple(names), []).append(GameResult(
            game["index"], [names.index(name) for name in game["seats"]],
            [float(r) for r in game["returns"]], game["turns"], game["truncated"],
            # files written before timings were stored: their moves count as untimed
            game.get("think_seconds", [0.0] * n), game.get("moves", [0] * n)))
    return lineup_games


@dataclass
class Evaluation:
    env_config: dict
    config: EvalConfig
    matches: list[MatchResult]
    ratings: list
    files: dict[str, Path]
    partial: bool = False  # stopped by Ctrl-C: the games finished by then


def run_evaluation(env_config: dict, config: EvalConfig, out_dir: Path,
                   console: Console | None = None,
                   agents: dict[str, list] | None = None) -> Evaluation:
    """Play every lineup of ``config`` and write the outputs. ``agents``: those of
    :func:`build_agents` (``evaluate.py`` builds them while checking its config); built here
    when not given. With ``config.resume``, the games of the stopped evaluation it names are
    kept (:func:`resumed_games`) and only the others played."""
    console = console or report_console()
    if agents is None:
        agents = build_agents(env_config, config)
    set_torch_threads(config.torch_threads)
    game = envs.make_game(env_config)
    n = game.num_players
    games = math.ceil(config.games / n) * n
    if games != config.games:
        console.print(f"games per lineup rounded up from {config.games} to {games} so that "
                      f"every agent plays each of the {n} seats equally often")
    bad = [i for i in config.gif_games if not 0 <= i < games]
    if bad:
        raise ValueError(f"gif_games {bad} out of range: each lineup plays games 0..{games - 1}")
    if config.schedule == "ladder":
        return ladder_evaluation(env_config, config, games, agents, out_dir, console)
    schedule = lineups(config, game)
    resumed = resumed_games(env_config, config)
    if resumed:
        console.print(f"resuming {config.resume}: {sum(map(len, resumed.values()))} games "
                      "played already")
    labels = short_labels(sorted({agent for lineup in schedule for agent in lineup}))
    if legend(labels):
        console.print(legend(labels))
    matches: list[MatchResult] = []
    finished: list = []  # the current lineup's games, kept if the evaluation is stopped
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    partial = False
    try:
        with Progress(*columns, console=console) as progress:
            played_before = sum(map(len, resumed.values()))
            task = progress.add_task("games", total=games * len(schedule))
            progress.advance(task, played_before)
            # Rich draws no live bar where the output is a file (nohup, a job's log): lines then,
            # counting the games this run plays
            lines = (None if console.is_terminal else
                     ProgressLine("evaluation", games * len(schedule) - played_before,
                                  every_s=LOG_EVERY_S))

            def advance(game_result) -> None:
                finished.append(game_result)
                progress.advance(task)
                if lines:
                    lines()

            for lineup in schedule:
                progress.update(task, description=" vs ".join(labels[a] for a in lineup))
                played = resumed.get(tuple(lineup_names(lineup)), [])
                finished[:] = played
                result = play_match(env_config, lineup, games, config.seed,
                                    agents=lineup_agents(lineup, agents),
                                    agent_options=config.agent_options, played=played,
                                    record=config.save_records or bool(config.gif_games),
                                    progress=advance, venue=config.venue())
                matches.append(result)
                progress.console.print(results_table(result, labels=labels))
    except KeyboardInterrupt:
        partial = True
        if finished:
            matches.append(match_result(env_config, lineup_names(lineup),
                                        sorted(finished, key=lambda g: g.index)))
        console.print(f"interrupted: writing the {sum(len(m.games) for m in matches)} games "
                      "finished so far, marked partial")
        if not matches:
            return Evaluation(env_config, config, [], [], {}, partial=True)
    ratings = rate(matches)
    console.print(ratings_table(ratings, title=f"{game.name}: ratings", labels=labels))
    files = write_outputs(env_config, config, matches, ratings, labels, out_dir, partial)
    if config.schedule == "panel":
        scores = panel_scores(matches)
        console.print(panel_table(scores, labels))
        files["panel"] = out_dir / "panel.json"
        files["panel"].write_text(json.dumps(scores, indent=1))
    for name, path in files.items():
        console.print(f"{name}: {path}")
    return Evaluation(env_config, config, matches, ratings, files, partial)


def panel_scores(matches: Sequence[MatchResult]) -> dict[str, dict]:
    """Per judged agent (each match's first seat): its score against each panel member (its
    mean share of first place: a win 1, a shared one its share, a draw 1/n; 1/n is parity),
    with the ``worst`` and the ``mean``."""
    scores: dict[str, dict] = {}
    for match in matches:
        seat = [g.seats.index(0) for g in match.games]
        share = float(np.mean([first_places(g.returns)[s]
                               for g, s in zip(match.games, seat, strict=True)]))
        scores.setdefault(match.names[0], {})[base_name(match.names[1])] = share
    return {agent: {"scores": members, "worst": min(members.values()),
                    "worst_member": min(members, key=members.get),
                    "mean": float(np.mean(list(members.values())))}
            for agent, members in scores.items()}


def ladder_evaluation(env_config: dict, config: EvalConfig, games: int, agents: dict,
                      out_dir: Path, console: Console) -> Evaluation:
    """``schedule=ladder``: arena/ladder.py's plan, a progress line per block, the ratings
    table, and ladder.json, ladder.csv and ladder.png in ``out_dir`` (the resumed ladder's
    folder on resume)."""
    n = envs.make_game(env_config).num_players
    labels = short_labels(config.agents)
    if legend(labels):
        console.print(legend(labels))
    lines = ProgressLine("ladder", games * (1 + config.ladder_blocks)
                         * (len(config.agents) - 1), every_s=LOG_EVERY_S)
    result = ladder.run_ladder(env_config, config.agents, agents, n, games, config.ladder_blocks,
                        config.seed, config.venue(), config.agent_options, out_dir,
                        Path(config.resume) if config.resume else None,
                        say=console.print, progress=lines)
    rows = result.rows()
    console.print(ladder_table(rows, labels, f"{env_config['name']} ladder "
                                             f"({len(result.matches)} blocks of {games} games)"))
    files = {"ladder": out_dir / "ladder.json", "csv": out_dir / "ladder.csv"}
    if config.chart:
        with best_effort("ladder plot"):
            files["plot"] = ladder.write_plot(rows, out_dir / "ladder.png",
                                              f"{env_config['name']}: rating against time "
                                              "per move")
    for name, path in files.items():
        console.print(f"{name}: {path}")
    return Evaluation(env_config, config, result.matches, result.ratings, files,
                      result.partial)


def write_outputs(env_config: dict, config: EvalConfig, matches: Sequence[MatchResult],
                  ratings: Sequence, labels: dict[str, str], out_dir: Path,
                  partial: bool = False) -> dict[str, Path]:
    """``labels``: the console tables' short names, which the chart uses too."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"json": out_dir / "results.json", "csv": out_dir / "results.csv"}
    write_json(files["json"], env_config, dataclasses.asdict(config), matches, ratings, partial)
    write_csv(files["csv"], matches)
    if config.save_records:
        files["records"] = out_dir / "games.jsonl"
        save_records([r for m in matches for r in m.records], files["records"])
    if config.chart:
        with best_effort("ratings chart"):
            path = out_dir / "ratings.png"
            write_chart(path, f"{env_config['name']}: {config.games} games per lineup",
                        matches, ratings, labels)
            files["chart"] = path
    for m, match in enumerate(matches):
        for index in (i for i in config.gif_games if i < len(match.games)):  # partial: fewer
            with best_effort(f"GIF of lineup {m}, game {index}"):
                files[f"gif {m}.{index}"] = render_gif(
                    match.games[index].record, out_dir / f"lineup{m}_game{index}.gif",
                    config.gif_frame_ms)
    return files


def log_to_wandb(logger: dict, run_config: dict, evaluation: Evaluation, out_dir: Path) -> None:
    """The evaluation's tables, chart and GIFs in a W&B run (``logger.mode``: offline by
    default, never needing a network; ``disabled`` logs nothing), its folder in ``logger.dir``
    or ``out_dir``."""
    if logger.get("mode", "disabled") == "disabled":
        return
    from arena.report import CSV_COLUMNS, csv_rows

    wandb = import_wandb()

    run = wandb.init(mode=logger["mode"], project=logger.get("project"),
                     entity=logger.get("entity"), dir=str(logger.get("dir") or out_dir),
                     tags=list(logger.get("tags") or []), job_type="evaluate",
                     config=run_config)
    rows = [[row[c] for c in CSV_COLUMNS] for row in csv_rows(evaluation.matches)]
    run.log({"results": wandb.Table(columns=list(CSV_COLUMNS), data=rows),
             "ratings": wandb.Table(columns=["agent", "rating", "low", "high"],
                                    data=[[r.name, r.rating, r.low, r.high]
                                          for r in evaluation.ratings])})
    for name, path in evaluation.files.items():
        with best_effort(f"W&B media {path}"):
            if name == "chart":
                run.log({"chart": wandb.Image(str(path))})
            elif name.startswith("gif"):
                run.log({name.replace(" ", "_"): wandb.Video(str(path), format="gif")})
    for r in evaluation.ratings:
        run.summary[f"rating/{r.name}"] = r.rating
    run.finish()
