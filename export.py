"""Export a trained policy for use outside this code:

    python export.py checkpoint=outputs/train/blockade/<run>/checkpoints/last.pt

writes ONNX and TorchScript files of the network and of a masked greedy policy, with their
metadata (game, rules, encoder, action mapping, how the run was trained), into an export/
folder beside the checkpoint. ``agents/onnx_file.py`` runs the ONNX file without torch,
and ``onnx:PATH`` is an agent spec. With ``zoo=NAME`` it adds the policy to the pretrained zoo
instead (``zoo/NAME/``, played as ``zoo:NAME``; docs/zoo.md). Settings: configs/export.yaml;
guide: docs/export.md. Bad input is one line and exit code 2.
"""

from __future__ import annotations

from omegaconf import DictConfig, OmegaConf

from configs.cli import entry_point
from configs.store import register

register()  # the config groups' defaults, from their dataclasses


def export_config() -> type:
    from models.export import ExportConfig

    return ExportConfig


@entry_point("export", settings=lambda: [("", export_config())])
def main(cfg: DictConfig) -> None:
    import zoo
    from models.export import ExportConfig, export_checkpoint
    from typedconfig import refuse

    if OmegaConf.is_missing(cfg, "checkpoint"):
        refuse("which checkpoint? python export.py checkpoint=PATH")
    try:
        values = OmegaConf.to_container(cfg, resolve=True)
        config = ExportConfig(**values)
        files = zoo.add(config) if config.zoo else export_checkpoint(config)
    except (ValueError, TypeError) as error:  # CheckpointError is a ValueError
        refuse(error)
    for kind, path in files.items():
        print(f"{kind:20} {path}")


if __name__ == "__main__":
    main()
