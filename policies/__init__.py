"""Trained policies outside training: export them, run them without PyTorch, play against them.

- :mod:`policies.onnx_policy` runs an exported ONNX file with numpy, onnxruntime and ``envs``
  only (``OnnxPolicy``; ``onnx:PATH`` agents); :mod:`policies.metadata` is what a file says
  about itself and the checks on load; :mod:`policies.acting` is how a network picks a move,
  shared with the PyTorch policy of checkpoints. None of these import torch.
- :mod:`policies.export` (needs torch and the training package) writes the files
  (``export.py``).
- :mod:`policies.terminal` is the game in the terminal (``play.py``).
"""
