"""Export a trained policy for use outside this code:

    python export.py checkpoint=outputs/train/blockade/<run>/checkpoints/last.pt

writes ONNX and TorchScript files of the network and of a masked greedy policy, with their
metadata (game, rules, encoder, action mapping, how the run was trained), into an export/
folder beside the checkpoint. ``agents/onnx_file.py`` runs the ONNX file without torch,
and ``onnx:PATH`` is an agent spec. With ``zoo=NAME`` it adds the policy to the pretrained zoo
instead (``zoo/NAME/``, played as ``zoo:NAME``; docs/zoo.md). ``play={...}`` sets how the
policy plays by default (agent spec options over the run's own); ``zoo=NAME play={...}`` without
a checkpoint changes that for an existing zoo entry, its network kept. Settings:
configs/export.yaml; guide: docs/export.md. Bad input is one line and exit code 2.
"""

from __future__ import annotations

from omegaconf import DictConfig, OmegaConf

from configs.cli import entry_point
from configs.store import register

register()  # the config groups' defaults, from their dataclasses


def export_config() -> type:
    from models.export import ExportConfig

    return ExportConfig


def play_change(options: dict):
    """``play``'s options applied to a ``policy`` (:meth:`agents.network.Acting.with_options`,
    so a wrong option or value is refused before anything is written)."""
    from agents.network import Acting

    def change(policy: dict) -> dict:
        return Acting.from_dict(policy, "policy").with_options("play", options).to_dict()

    return change


@entry_point("export", settings=lambda: [("", export_config())])
def main(cfg: DictConfig) -> None:
    import zoo
    from models.export import ExportConfig, export_checkpoint
    from typedconfig import refuse

    try:
        values = OmegaConf.to_container(cfg, resolve=True)
        if OmegaConf.is_missing(cfg, "checkpoint"):
            values["checkpoint"] = None  # ExportConfig says when that will do
        config = ExportConfig(**values)
        play = play_change(config.play) if config.play else None
        if config.checkpoint is None:
            files = zoo.change_policy(config.zoo, play)
        elif config.zoo:
            files = zoo.add(config, play)
        else:
            files = export_checkpoint(config, play)
    except (ValueError, TypeError) as error:  # CheckpointError is a ValueError
        refuse(error)
    for kind, path in files.items():
        print(f"{kind:20} {path}")


if __name__ == "__main__":
    main()
