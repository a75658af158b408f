"""The entry points' configs: YAML presets and recipes in the folders beside this file, and
:mod:`configs.store`, which builds each config group's defaults from its dataclass."""
