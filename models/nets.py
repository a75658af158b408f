"""Policy-value networks, TorchScript-scriptable (``torch.jit.script(net)`` works for export).

Both networks map a batch of observations from one player's view to ``(logits, values)``:
``logits`` [B, num_actions] over view actions and ``values`` [B, num_players] in (-1, 1) for the
relative seats (0 = the viewing player, 1 = the next in turn order, ...).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import torch
from torch import nn

from typedconfig import from_mapping

KINDS = ("auto", "conv", "mlp")
POLICY_HEADS = ("auto", "flat", "spatial")


@dataclass(frozen=True)
class ActionLayout:
    """Where a grid game's view actions lie on the board, for the spatial policy head: first
    ``moves_per_piece`` actions for each piece (piece ``k`` is marked by one-hot observation
    plane ``piece_planes[k]``), then ``anchor_kinds`` blocks of one action per interior grid
    point (``(H-1) x (W-1)``, row-major). ``move_offsets[j]`` is the ``(row, col)`` step of a
    piece's move ``j`` in the view, when every piece moves by the same offsets (empty: unknown).
    Blockade's encoder declares one; games without one get the flat head."""

    piece_planes: tuple[int, ...]
    moves_per_piece: int
    anchor_kinds: int
    move_offsets: tuple[tuple[int, int], ...] = ()

    def __post_init__(self):
        if self.move_offsets and len(self.move_offsets) != self.moves_per_piece:
            raise ValueError(f"action layout has {len(self.move_offsets)} move offsets for "
                             f"{self.moves_per_piece} moves per piece")


@dataclass(frozen=True)
class ModelConfig:
    """``model``: the network. The defaults are the default network (``model=small``), sized
    for 2 CPU cores; configs/model/*.yaml are presets."""

    # conv net: channels of the residual tower
    channels: int = 32
    # residual blocks (conv or MLP)
    blocks: int = 3
    # MLP width, and the conv net's value-head width
    hidden: int = 128
    # conv net: 1x1 channels feeding the policy layer
    policy_channels: int = 4
    # derived input planes (models/features.py): auto = those the game defines for it
    # (Blockade: goal_steps; others: none) | a list of names | [] = the game's own planes only
    features: tuple[str, ...] = ("auto",)
    # auto: conv net for planes, MLP for vectors | conv | mlp (flattens planes)
    kind: str = "auto"
    # conv net: auto (spatial where the game has an action layout: Blockade's pawn moves read
    # from the features under each pawn, walls from the 2x2 cells at their anchor) | flat (1x1
    # conv, flatten, linear) | spatial
    policy_head: str = "auto"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"model kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.policy_head not in POLICY_HEADS:
            raise ValueError(f"model policy_head must be one of {', '.join(POLICY_HEADS)}, "
                             f"got {self.policy_head!r}")
        for field in ("channels", "blocks", "hidden", "policy_channels"):  # sizes
            if getattr(self, field) < (0 if field == "blocks" else 1):
                raise ValueError(f"model {field} must be positive, got {getattr(self, field)}")


def model_config(group: Mapping) -> ModelConfig:
    """The ``model`` config group as a checked :class:`ModelConfig`."""
    return from_mapping(ModelConfig, group, "model")


class PointwiseConv(nn.Conv2d):
    """A 1x1 convolution computed as one batched matrix product over the cells. At the heads'
    widths (8 or 32 channels in, 1-2 out) PyTorch's convolution on a CPU costs about 7x as
    much, which in the compact PPO net was a tenth of a rollout step. Parameters as
    ``nn.Conv2d(in, out, 1)``, so checkpoints are interchangeable."""

    def __init__(self, in_channels: int, out_channels: int, bias: bool = True):
        super().__init__(in_channels, out_channels, 1, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, _, h, w = x.shape
        weight = self.weight.flatten(1).expand(b, -1, -1)  # [B, out, in]
        bias = self.bias
        if bias is None:
            y = torch.bmm(weight, x.flatten(2))
        else:
            y = torch.baddbmm(bias.view(1, -1, 1).expand(b, -1, h * w), weight, x.flatten(2))
        return y.view(b, -1, h, w)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class FlatPolicyHead(nn.Module):
    """AlphaZero's policy head: a few 1x1 channels, flattened, one linear layer to the actions."""

    def __init__(self, channels: int, height: int, width: int, num_actions: int,
                 policy_channels: int):
        super().__init__()
        self.layers = nn.Sequential(
            PointwiseConv(channels, policy_channels, bias=False), nn.BatchNorm2d(policy_channels),
            nn.ReLU(), nn.Flatten(), nn.Linear(policy_channels * height * width, num_actions))

    def forward(self, x: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class SpatialPolicyHead(nn.Module):
    """Logits laid out on the board (an :class:`ActionLayout`): a piece's moves come from the
    features under that piece, an anchor's actions from the 2x2 cells around it. The same
    weights serve every square, so what is learnt in one place holds everywhere (the flat head
    ties each action to board locations and needs far more samples).

    With ``move_offsets`` a move's logit also gets a score read at its destination cell (one
    1x1-conv score plane per piece): "step to the neighbour nearer the goal" is then one
    comparison of values the tower already holds, even where the way leads around a wall, which
    the features under the piece alone would have to encode for all twelve moves at once."""

    def __init__(self, channels: int, layout: ActionLayout):
        super().__init__()
        self.register_buffer("piece_planes", torch.tensor(layout.piece_planes, dtype=torch.long),
                             persistent=False)
        self.moves = nn.Linear(channels, layout.moves_per_piece)
        self.anchors = nn.Conv2d(channels, layout.anchor_kinds, 2)
        offsets = [tuple(int(d) for d in offset) for offset in layout.move_offsets]
        self.reach = max((abs(d) for offset in offsets for d in offset), default=0)
        self.destination = PointwiseConv(channels, len(layout.piece_planes)) if offsets else None
        self.register_buffer("offset_rows", torch.tensor([dr for dr, _ in offsets],
                                                         dtype=torch.long), persistent=False)
        self.register_buffer("offset_cols", torch.tensor([dc for _, dc in offsets],
                                                         dtype=torch.long), persistent=False)

    def forward(self, x: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        pieces = obs.index_select(1, self.piece_planes)  # [B, P, H, W], one-hot each
        under = torch.einsum("bphw,bchw->bpc", pieces, x)
        moves = self.moves(under)  # [B, P, M]
        if self.destination is not None:
            w, r = pieces.shape[3], self.reach
            scores = self.destination(x)  # [B, P, H, W]: piece k's score of standing there
            # Read each move's destination off the zero-padded score plane, by flat index.
            padded = nn.functional.pad(scores, [r, r, r, r]).flatten(2)  # [B, P, (H+2r)(W+2r)]
            found, cell = pieces.flatten(2).max(2)  # [B, P]: 1 and the piece's cell, if any
            row, col = torch.div(cell, w, rounding_mode="floor"), cell % w
            target = ((row + r).unsqueeze(2) + self.offset_rows) * (w + 2 * r) \
                + (col + r).unsqueeze(2) + self.offset_cols  # [B, P, M]
            moves = moves + padded.gather(2, target) * found.unsqueeze(2)
        return torch.cat([moves.flatten(1), self.anchors(x).flatten(1)], dim=1)


class ConvNet(nn.Module):
    """AlphaZero's residual tower for (C, H, W) planes, sized for a 2-core CPU."""

    def __init__(self, obs_shape: tuple[int, int, int], num_actions: int, num_players: int,
                 config: ModelConfig, layout: ActionLayout | None = None):
        super().__init__()
        c_in, h, w = obs_shape
        ch = config.channels
        self.stem = nn.Sequential(nn.Conv2d(c_in, ch, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(ch), nn.ReLU())
        self.tower = nn.Sequential(*[ResidualBlock(ch) for _ in range(config.blocks)])
        head = config.policy_head
        if head == "auto":
            head = "flat" if layout is None else "spatial"
        if head == "spatial":
            if layout is None:
                raise ValueError("model policy_head spatial needs a game whose encoder declares "
                                 "an action layout; use flat or auto")
            laid_out = (len(layout.piece_planes) * layout.moves_per_piece
                        + layout.anchor_kinds * (h - 1) * (w - 1))
            if laid_out != num_actions:
                raise ValueError(f"action layout covers {laid_out} actions, the game has "
                                 f"{num_actions}")
            self.policy = SpatialPolicyHead(ch, layout)
        else:
            self.policy = FlatPolicyHead(ch, h, w, num_actions, config.policy_channels)
        self.value = nn.Sequential(PointwiseConv(ch, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU(),
                                   nn.Flatten(), nn.Linear(h * w, config.hidden), nn.ReLU(),
                                   nn.Linear(config.hidden, num_players), nn.Tanh())

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.tower(self.stem(obs))
        return self.policy(x, obs), self.value(x)


class ResidualMLPBlock(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(x + self.fc2(torch.relu(self.fc1(x)))))


class MLPNet(nn.Module):
    """A residual MLP for flat feature vectors (a track game has no useful 2-D picture), or for
    planes flattened (far cheaper than the conv net on a CPU, e.g. for PPO rollouts)."""

    def __init__(self, obs_shape: tuple[int, ...], num_actions: int, num_players: int,
                 config: ModelConfig):
        super().__init__()
        width = config.hidden
        self.stem = nn.Sequential(nn.Linear(math.prod(obs_shape), width), nn.ReLU())
        self.tower = nn.Sequential(*[ResidualMLPBlock(width) for _ in range(config.blocks)])
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Sequential(nn.Linear(width, width // 2), nn.ReLU(),
                                   nn.Linear(width // 2, num_players), nn.Tanh())

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.tower(self.stem(obs.flatten(1)))
        return self.policy(x), self.value(x)


def action_layout(encoder) -> ActionLayout | None:
    """The encoder's declared :class:`ActionLayout` (a mapping of its fields), if any."""
    layout = getattr(encoder, "action_layout", None)
    return None if layout is None else ActionLayout(**layout)


def build_network(obs_shape: tuple[int, ...], num_actions: int, num_players: int,
                  config: ModelConfig, layout: ActionLayout | None = None) -> nn.Module:
    """The network for an encoder's shape (and action layout, :func:`action_layout`): with
    ``kind: auto`` planes (C, H, W) get the conv net and a flat vector the MLP; ``kind: mlp``
    flattens planes into the MLP."""
    obs_shape = tuple(int(d) for d in obs_shape)
    if config.kind == "mlp" or (config.kind == "auto" and len(obs_shape) == 1):
        return MLPNet(obs_shape, num_actions, num_players, config)
    if len(obs_shape) == 3:
        return ConvNet(obs_shape, num_actions, num_players, config, layout)
    raise ValueError(f"no network for observations of shape {obs_shape} (model kind "
                     f"{config.kind}): expected (C, H, W) planes or a flat vector")


def network_for(game, encoder, config: ModelConfig) -> nn.Module:
    """A network (fresh weights) for ``game`` observed through ``encoder``."""
    return build_network(encoder.shape, game.num_actions, game.num_players, config,
                         action_layout(encoder))
