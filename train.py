"""Train an agent by self-play: ``python train.py`` (AlphaZero on 2-player Blockade), e.g.
``python train.py env=nobles env.num_players=4 algo.iterations=50`` or
``python train.py resume=outputs/train/.../checkpoints/last.pt`` (which goes on writing into
that run's folder). The console's lines are also in ``<run folder>/train.log``. See
docs/training.md.

Under Hydra's multirun (``-m``, configs/sweep/*.yaml) ``main`` returns the final evaluation's
score, which the Optuna sweeper maximises, and each job writes ``result.json`` for
``python -m training.sweep`` (training/sweep.py).

Top-level keys: ``seed`` (fixes the run), ``resume=PATH``, ``exploit=SPEC`` (with
``+experiment=exploit``); ``env.*`` are the game's rules settings (``--cfg job`` lists them).

Exit codes: 0 done, 2 a bad config, checkpoint or output folder (one line on stderr, checked
before any work), 130 stopped by Ctrl-C (after writing a checkpoint when there was work to keep).
"""

import sys
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from configs.cli import entry_point
from configs.store import register
from training.launch import register_resolvers

register()  # the config groups' defaults, from their dataclasses
register_resolvers()  # before Hydra composes configs/config.yaml, which uses them


def algo_config() -> type:
    """The config class of the algorithm the command line names (``algo=ppo``), for --help."""
    from configs.store import ALGORITHMS

    name = next((arg.split("=", 1)[1] for arg in sys.argv[1:] if arg.startswith("algo=")),
                "alphazero")
    return ALGORITHMS[name][0] if name in ALGORITHMS else ALGORITHMS["alphazero"][0]


@entry_point("config", groups=("env", "algo", "model", "runner", "logger", "experiment",
                                "sweep"), settings=lambda: [("algo.", algo_config())])
def main(cfg: DictConfig) -> float | None:
    from models.checkpoint import CheckpointError
    from training.evaluation import score
    from training.launch import run
    from training.logging import console_copied_to
    from training.sweep import write_result
    from training.trainer import INTERRUPTED_EXIT_CODE
    from typedconfig import refuse

    hydra_cfg = HydraConfig.get()
    run_dir = hydra_cfg.runtime.output_dir
    with console_copied_to(Path(run_dir) / "train.log"):
        try:
            result = run(cfg, run_dir, list(hydra_cfg.overrides.task))
            write_result(run_dir, result, list(hydra_cfg.overrides.task))
        except (CheckpointError, ValueError) as error:
            refuse(error)
    if result.interrupted:
        sys.exit(INTERRUPTED_EXIT_CODE)
    return score(result.final_eval)


if __name__ == "__main__":
    main()
