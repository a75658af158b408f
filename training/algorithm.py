"""What an algorithm is to the training loop (training/trainer.py): its config's loop settings
(:class:`LoopConfig`), what one iteration reports (:class:`Step`), the methods the loop calls
(:class:`Algorithm`) and the base the algorithms here start from (:class:`NetworkAlgorithm`:
the typed config, the game, its encoder and the seeded network)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol

import torch

import envs
from agents.network import Acting, NetworkAgent
from models.checkpoint import model_payload
from models.evaluator import NetworkEvaluator
from models.features import make_encoder
from models.nets import network_for
from training.device import learner_device, learner_net
from training.evaluation import TrainingEvalConfig
from training.runner import RunnerConfig
from typedconfig import from_mapping


@dataclass(frozen=True)
class CheckpointConfig:
    """``algo.checkpoint``."""

    # write checkpoints/last.pt every this many iterations (also after the warm start, at the
    # end, and on Ctrl-C)
    every: Annotated[int, ">= 1"] = 5
    # also keep a copy as checkpoints/iteration_NNNNNN.pt every this many iterations (0 =
    # none): the network along the run, for a learning curve of 200-game evaluations
    # (evaluate.py 'agents=["checkpoint:PATH"]') where the periodic 20-game ones are too coarse
    keep_every: Annotated[int, ">= 0"] = 0


@dataclass(frozen=True)
class LoopConfig:
    """What the loop reads of every algorithm's ``algo`` config: its name, the limits, the
    console, evaluation and checkpoint cadences. An algorithm's config extends it, giving
    ``name``, ``iterations`` and ``console_every`` its own defaults."""

    # the algorithm, as its config class says (alphazero | ppo)
    name: str
    # iterations at most (null = until the time limit)
    iterations: Annotated[int, ">= 1"] | None
    # print a progress line every this many iterations (0 = only the last)
    console_every: Annotated[int, ">= 0"]
    # stop after the iteration that crosses this budget (warm start and periodic evaluation
    # included, the final evaluation not); null = iterations only, which makes the stopping
    # point independent of the machine's speed. On resume, the limits on the command line
    # replace the checkpoint's (one given alone lifts the other)
    time_limit_minutes: Annotated[float, "> 0"] | None = None
    # the evaluations during and after the run
    eval: TrainingEvalConfig = field(default_factory=TrainingEvalConfig)
    # the checkpoints' cadence
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)

    def __post_init__(self):
        name = next(f.default for f in dataclasses.fields(self) if f.name == "name")
        if self.name != name:
            raise ValueError(f"{type(self).__name__} is for algo.name={name}, got {self.name!r}")
        if self.iterations is None and self.time_limit_minutes is None:
            raise ValueError("config algo.iterations and algo.time_limit_minutes are both null: "
                             "give at least one limit")


@dataclass
class Step:
    """What one iteration reports: scalars for the logger and the run's history, and the
    algorithm's part of the console's progress line."""

    metrics: dict[str, float]
    console: list[str] = field(default_factory=list)


class Algorithm(Protocol):
    """What the loop needs of an algorithm. ``counters`` holds the algorithm's own counts
    (games, agent steps, ...); the loop keeps the iteration, the time and whether the warm
    start ran. Optional: ``replay_state()`` / ``load_replay_state(state)`` for bulky data saved
    beside the checkpoint (a replay buffer), and ``sample_game()``, the actions of a recent
    game for a GIF in W&B."""

    name: str
    Config: type          # its ``algo`` config dataclass (checked before a run starts)
    game: Any
    config: dict          # the run's full config, saved in every checkpoint
    algo: Any             # its typed ``algo`` config (a LoopConfig)
    counters: dict
    device: torch.device  # where the learner's gradient steps run (runner.learner_device)

    def start(self) -> dict: ...                            # once per run (the warm start)
    def iteration(self, number: int, progress: float) -> Step: ...
    def acting(self): ...                                   # how its agent plays (Acting)
    def agent(self): ...                                    # the trained agent (NetworkAgent)
    def model(self) -> dict: ...                            # the network's part of a checkpoint
    def state_dict(self) -> dict: ...                       # the rest of what a resume needs
    def load_state_dict(self, payload: dict) -> None: ...   # from a whole checkpoint
    def close(self) -> None: ...                            # after the last iteration (and at exit)


class NetworkAlgorithm:
    """What the algorithms here start from: the run's config read into the typed ``algo``
    (the subclass's ``Config``), ``model_config`` and ``runner_config``, the game and its
    encoder, and the network, its initial weights drawn from the run's seed; ``model()`` is the
    network's part of a checkpoint. ``net`` stays on the CPU (self-play, evaluation,
    checkpoints); the learner trains ``learning.trained`` on ``device`` and calls
    ``learning.sync()`` after each training call (training/device.py)."""

    name: str
    Config: type

    def __init__(self, config: dict):
        from models.nets import model_config

        self.config = config
        self.algo = from_mapping(self.Config, config["algo"], "algo")
        self.model_config = model_config(config["model"])
        self.runner_config = from_mapping(RunnerConfig, config["runner"], "runner")
        self.device = learner_device(self.runner_config.learner_device)
        self.env_config = dict(config["env"])
        self.seed = int(config["seed"])
        self.game = envs.make_game(self.env_config)
        self.encoder = make_encoder(self.game, self.model_config.features)
        torch.manual_seed(self.seed)
        self.net = network_for(self.game, self.encoder, self.model_config)
        self.learning = learner_net(self.net, self.device)

    def agent(self, acting: Acting | None = None) -> NetworkAgent:
        """The network as it is now, playing as ``acting`` says (default: the subclass's
        ``acting()``, how its trained agent plays)."""
        return NetworkAgent(NetworkEvaluator(self.net, self.encoder, self.game.num_players),
                            acting or self.acting(), "trained", envs.game_hooks(self.game).evaluate)

    def model(self) -> dict:
        return model_payload(self.net, self.encoder, self.game.num_actions,
                             self.game.num_players, self.model_config)
