"""Networks for all games: a residual conv net for plane observations (Blockade, Barricade), a
residual MLP for flat ones (Nobles), both with policy logits over the game's view actions and a
value head with one output per player (relative seats: 0 = the player whose view it is).
:func:`models.nets.build_network` picks one by the encoder's shape; :mod:`models.evaluator`
turns a network and an encoder into the batched evaluator that search calls."""
