"""What ``train.py`` does for every algorithm: resolve the config (merging a resumed run's
config with the command line), set up logging, build the algorithm named by ``algo._target_``,
run it in the shared loop (training/trainer.py), and report."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from hydra.utils import get_class, get_method
from omegaconf import DictConfig, OmegaConf
from rich.console import Console

import envs
from agents import make_agent
from arena.panel import check_not_trained_against
from arena.report import report_console
from models.checkpoint import CheckpointError, load_checkpoint
from models.features import resolve_features
from training.evaluation import print_tables
from training.logging import LoggerConfig, RunLogger, check_credentials
from training.trainer import Trainer, TrainResult
from typedconfig import refuse

AGENT_SPEC_FIELDS = ("teacher", "opponent", "opponents", "final_opponents", "baselines")
"""The fields of an algorithm's config (at any depth) that hold agent specs."""
CONFIG_GROUPS = ("env", "algo", "model", "logger", "runner")
FIXED_ON_RESUME = ("env", "model", "seed")
"""What a resumed run may not change: the game, the network and the seeds."""
LIMITS = ("algo.iterations", "algo.time_limit_minutes")


_KEPT: dict = {}
"""What the check before start computed, for the run that follows it in the same process."""


def computed_once(key: Hashable, compute: Callable, *, keep: bool = False):
    """``compute()``, done once for the check before start and the run after it: the check's
    call (``keep=True``) keeps its result under ``key``, the run's call takes it (once; another
    key, or a second run in the process, computes anew). What the check loads or builds
    (a resumed checkpoint, an evaluation's agents) is then loaded or built once."""
    if keep:
        _KEPT.clear()
        _KEPT[key] = compute()
        return _KEPT[key]
    return _KEPT.pop(key) if key in _KEPT else compute()


def run_folder(resume: str | None, fresh: str) -> str:
    """Hydra's ``hydra.run.dir``: a resumed run writes into the folder of the run it resumes
    (a training checkpoint ``<run>/checkpoints/last.pt`` -> ``<run>``; an evaluation's folder,
    or its results.json or ladder.json -> that folder), a new one into ``fresh``: so does a
    run resumed from a kept copy (``iteration_NNNNNN.pt``), a branch that must not overwrite
    its run's later last.pt."""
    if not resume:
        return fresh
    path = Path(resume)
    if path.is_dir():
        return str(path)
    if path.parent.name == "checkpoints" and path.name == "last.pt":
        return str(path.parent.parent)
    if path.name in ("results.json", "ladder.json"):
        return str(path.parent)
    return fresh


def config_subfolder(resume: str | None, time: str) -> str:
    """Hydra's ``hydra.output_subdir``: ``.hydra``, or for a resume of a run in its folder
    ``.hydra/resumed-<time>``, so that the first run's config files stay as they were."""
    return f".hydra/resumed-{time}" if resume else ".hydra"


def register_resolvers() -> None:
    for name, function in (("run_folder", run_folder), ("config_subfolder", config_subfolder)):
        if not OmegaConf.has_resolver(name):
            OmegaConf.register_new_resolver(name, function)


def name_features(config: dict) -> None:
    """Replace ``auto`` in ``model.features`` by the names it stands for (what the checkpoint
    records, so that its network's input never depends on what ``auto`` means later)."""
    model = config["model"]
    game = envs.make_game(config["env"])
    model["features"] = list(resolve_features(game, model.get("features") or ()))


def resumed_config(checkpoint_config: dict, current: DictConfig, overrides: list[str]) -> dict:
    """The checkpoint's config with this command line's overrides on top (``resume=PATH
    algo.iterations=60`` extends a run). The limits given replace the checkpoint's: one given
    alone lifts the other. Changing the game, network or seed is an error."""
    merged = OmegaConf.create(checkpoint_config)
    keys = [o.split("=", 1)[0].lstrip("+~") for o in overrides]
    for key in keys:
        if key == "resume" or key.startswith("hydra"):
            continue
        value = current[key] if key in CONFIG_GROUPS else OmegaConf.select(current, key)
        OmegaConf.update(merged, key, value, force_add=True)
    if any(limit in keys for limit in LIMITS):
        for limit in LIMITS:
            if limit not in keys:
                OmegaConf.update(merged, limit, None)
    merged.resume = current.resume
    merged = OmegaConf.to_container(merged, resolve=True)
    game, wanted = checkpoint_config["env"]["name"], merged["env"]["name"]
    if wanted != game:  # before the features, which another game's rules cannot resolve
        raise CheckpointError(f"cannot resume a {game} run as {wanted}: the checkpoint's game "
                              f"is fixed; leave env= out or train a new {wanted} run")
    name_features(merged)
    for key in FIXED_ON_RESUME:
        if merged[key] != checkpoint_config[key]:
            raise CheckpointError(f"cannot resume with a different {key}: the checkpoint has "
                                  f"{checkpoint_config[key]!r}, this command line gives "
                                  f"{merged[key]!r}")
    return merged


def resumed(cfg: DictConfig, overrides: list[str], keep: bool = False) -> tuple[dict, dict]:
    """The checkpoint ``cfg.resume`` names and the config the resumed run trains with
    (:func:`resumed_config`); :class:`CheckpointError` for a file that is not a checkpoint or
    does not fit the command line (another game, network, seed or algorithm). The file is read
    once for the check before start (``keep``) and the run (:func:`computed_once`)."""
    path = Path(cfg.resume)
    stat = path.stat() if path.is_file() else None
    key = ("resume", str(path.resolve()), stat and (stat.st_mtime_ns, stat.st_size))
    checkpoint = computed_once(key, lambda: load_checkpoint(path), keep=keep)
    config = resumed_config(checkpoint["config"], cfg, overrides)
    if checkpoint["algo"] != config["algo"]["name"]:
        raise CheckpointError(f"checkpoint {cfg.resume} is from {checkpoint['algo']}, "
                              f"not {config['algo']['name']}")
    return checkpoint, config


def algorithm_class(config: dict) -> type:
    """The class ``algo._target_`` names (e.g. ``training.alphazero.AlphaZero``)."""
    target = config["algo"].get("_target_")
    try:
        return get_class(target)
    except Exception:
        raise ValueError(f"algo._target_ must name an algorithm class such as "
                         f"training.alphazero.AlphaZero, got {target!r}") from None


def run(cfg: DictConfig, run_dir: str | Path, overrides: list[str] | None = None,
        console: Console | None = None) -> TrainResult:
    """Train as ``cfg`` says, writing into ``run_dir``; returns the loop's TrainResult."""
    console = console or report_console()
    resume = None
    if cfg.get("resume"):
        resume, config = resumed(cfg, list(overrides or []))
    else:
        config = OmegaConf.to_container(cfg, resolve=True)
        name_features(config)
    algorithm = algorithm_class(config)(config)
    print(f"learner on {algorithm.device} "
          f"(runner.learner_device={config['runner'].get('learner_device', 'cpu')})", flush=True)
    # W&B's config records the device used (``auto`` resolved); the checkpoint keeps the key
    # as given, so that a resume on another machine resolves it there.
    logger = RunLogger(config["logger"], {**config, "learner_device": str(algorithm.device)},
                       run_dir, name=f"{algorithm.name}-{config['env']['name']}")
    try:
        result = Trainer(algorithm, run_dir, logger, resume, cfg.get("resume")).run()
    finally:
        logger.finish()
    if result.final_eval:
        print_tables(result.final_eval, result.final_ratings, console)
    if result.checkpoint is not None:
        print(f"checkpoint: {result.checkpoint}", flush=True)
    return result


def check_config(cfg: DictConfig) -> None:
    """Every user-facing key of a training config, checked before any work: ``ValueError`` with
    one line naming the key, the value and what is allowed."""
    from models.nets import model_config
    from training.runner import RunnerConfig
    from typedconfig import check_value, from_mapping

    plain = OmegaConf.to_container(cfg, resolve=False)
    plain.pop("hydra", None)
    if plain.get("exploit") is None and "${exploit}" in str(plain["algo"]):
        raise ValueError("+experiment=exploit needs exploit=SPEC: the agent to exploit, e.g. "
                         "exploit=zoo:nobles_2p or exploit=heuristic")
    plain["logger"].pop("dir", None)  # ${hydra:...}: Hydra's own, set when the job starts
    config = OmegaConf.to_container(OmegaConf.create(plain), resolve=True)
    check_value(config.get("seed"), int, "seed")
    algo = from_mapping(algorithm_class(config).Config, config["algo"], "algo")
    model_config(config["model"])
    from_mapping(RunnerConfig, config["runner"], "runner")
    game = envs.make_game(config["env"])
    check_credentials(from_mapping(LoggerConfig, config["logger"], "logger").mode)
    if config.get("exploit") is None:  # an exploiter trains against its target on purpose
        for key, specs in algo.opponents().items():
            check_not_trained_against(specs, game, key)
    check_agent_specs(algo, game)
    if config.get("resume"):
        resumed(cfg, list(OmegaConf.select(cfg, "hydra.overrides.task", default=[])), keep=True)
    if OmegaConf.select(cfg, "hydra.mode") == RunMode.MULTIRUN and not (
            algo.eval.enabled and algo.eval.final_games):
        raise ValueError("a sweep scores each job by its final evaluation: give it "
                         "algo.eval.final_games > 0 (and algo.eval.enabled=true)")


def agent_specs(config, where: str = "algo") -> Iterator[tuple[str, str]]:
    """``(key, spec)`` for every agent spec in the typed config ``config`` (``AGENT_SPEC_FIELDS``
    at any depth), used or not."""
    for field in dataclasses.fields(config):
        value, key = getattr(config, field.name), f"{where}.{field.name}"
        if dataclasses.is_dataclass(value):
            yield from agent_specs(value, key)
        elif field.name in AGENT_SPEC_FIELDS:
            yield from ((key, spec) for spec in ((value,) if isinstance(value, str) else value))


def check_agent_specs(algo, game) -> None:
    """Every agent spec of the ``algo`` config built once for ``game``: a misspelt name, a bad
    option or a missing checkpoint is found now, not at the first evaluation hours later."""
    for key, spec in agent_specs(algo):
        try:
            make_agent(spec, game)
        except (ValueError, TypeError, FileNotFoundError) as error:
            raise ValueError(f"{key}={spec!r}: {error}") from None


def check_output_folder(folder: str | Path, key: str = "hydra.run.dir") -> None:
    """``folder`` can be created (or written) here: else one clear ``ValueError``. Tried by
    making and removing a scratch folder in its nearest existing ancestor, which answers for
    any user and file system (``os.access`` says yes to root everywhere)."""
    folder = Path(folder).absolute()
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    try:
        os.rmdir(tempfile.mkdtemp(dir=existing, prefix=".write-check-"))
    except OSError as error:
        raise ValueError(f"cannot write the output folder {folder}: {existing} is not a "
                         f"writable folder ({error.strerror or error}); choose another with "
                         f"{key}=...") from None


class CheckBeforeStart(Callback):
    """Hydra callback (configs/config.yaml, configs/evaluate.yaml): the config and the output
    folder are checked before Hydra creates the folder or anything else starts; a problem is
    one line on stderr and exit code 2."""

    def __init__(self, check: str):
        self.check = get_method(check)

    def on_run_start(self, config: DictConfig, **kwargs) -> None:
        self._check(config, config.hydra.run.dir, "hydra.run.dir")

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        """A sweep (``-m``): its config without the swept values, and the sweep's folder."""
        HydraConfig.instance().set_config(config)  # for ${hydra:...} (Hydra's is set per job)
        self._check(config, config.hydra.sweep.dir, "hydra.sweep.dir")

    def _check(self, config: DictConfig, folder: str, key: str) -> None:
        try:
            self.check(config)
            check_output_folder(folder, key)
        except (ValueError, TypeError, FileNotFoundError) as error:
            refuse(error)
