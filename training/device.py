"""Where the learner's gradient steps run (``runner.learner_device``), and the network they
change. Self-play, rollouts, evaluation and checkpoints always use the CPU network
(``NetworkAlgorithm.net``): workers get CPU weights and a checkpoint resumes on any device. On
the CPU the learner trains that network itself; on a GPU it trains a copy there, and after each
training call the CPU network gets the copy's weights.
"""

from __future__ import annotations

import copy
import re

import torch

LEARNER_DEVICES = "cpu, cuda, cuda:N or auto"


def learner_device(name: str) -> torch.device:
    """The device ``runner.learner_device`` names: ``auto`` is the current CUDA device when
    torch sees one, else the CPU. A CUDA device torch does not see is a ``ValueError`` naming
    the key and what torch sees, so that a run fails before any work."""
    if not re.fullmatch(r"cpu|auto|cuda(:\d+)?", str(name)):
        raise ValueError(f"config runner.learner_device={name!r}: must be {LEARNER_DEVICES}")
    if name == "cpu" or (name == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
        raise ValueError(f"config runner.learner_device={name!r}: torch {torch.__version__} "
                         f"({build}) sees no CUDA device; use cpu or auto")
    device = torch.device("cuda", torch.cuda.current_device()) if name in ("auto", "cuda") \
        else torch.device(name)
    if device.index >= torch.cuda.device_count():
        raise ValueError(f"config runner.learner_device={name!r}: torch sees "
                         f"{torch.cuda.device_count()} CUDA device(s), cuda:0 to "
                         f"cuda:{torch.cuda.device_count() - 1}")
    return device


class SharedNet:
    """The learner trains the CPU network itself: ``trained`` is ``net``, nothing to copy."""

    def __init__(self, net: torch.nn.Module):
        self.net = self.trained = net

    def sync(self) -> None:
        pass

    def reload(self) -> None:
        pass


class DeviceCopy:
    """The learner trains ``trained``, a copy of the CPU network ``net`` on ``device``; its
    optimiser holds the copy's parameters."""

    def __init__(self, net: torch.nn.Module, device: torch.device):
        self.net = net
        self.trained = copy.deepcopy(net).to(device)

    def sync(self) -> None:
        """After training: ``net`` gets the trained weights (and batch-norm statistics)."""
        self.net.load_state_dict(self.trained.state_dict())

    def reload(self) -> None:
        """After ``net`` was loaded from a checkpoint: the copy gets its weights."""
        self.trained.load_state_dict(self.net.state_dict())


def learner_net(net: torch.nn.Module, device: torch.device) -> SharedNet | DeviceCopy:
    """What the learner trains on ``device``: on the CPU ``net`` itself (no copy, training as
    without this key), elsewhere a copy there."""
    return SharedNet(net) if device.type == "cpu" else DeviceCopy(net, device)
