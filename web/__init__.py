"""The web player (``python play.py ui=web``): a local web app to play every game in the
browser against people and agents, watch agents play, and replay recorded games.

- :mod:`web.app`: the HTTP routes (the page, its files and a JSON API), every request checked;
- :mod:`web.live`: live games, the bounded store that keeps them, agents with shared networks;
- :mod:`web.catalog`: the env configs and the files of the allowed folders the page may choose;
- :mod:`web.replay`: recorded games replayed position by position;
- :mod:`web.config`, :mod:`web.server`: the settings (``ui/settings.py``) and the server;
- ``web/static/``: the page, plain JavaScript modules with one SVG board per game.

The server stays generic over the engine contract; what a board needs beyond a position comes
from the game's own ``envs/<game>/layout.py``."""
