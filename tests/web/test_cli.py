"""``python play.py ui=web``: it prints its address and serves the page and its files; an
address other machines can reach is warned about; bad settings are one line and exit code 2."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

from conftest import ROOT


def test_play_py_serves_the_page_and_warns_when_the_host_is_exposed():
    server = subprocess.Popen([sys.executable, "play.py", "ui=web", "host=0.0.0.0", "port=0"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("web player on http://0.0.0.0:"), line
        port = line.split(":")[2].split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as page:
            html = page.read().decode()
        assert '<script type="module" src="/static/app.js">' in html and "https://" not in html
        for asset in ("app.js", "svg.js", "style.css", "games/blockade.js",
                      "games/barricade.js", "games/nobles.js"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/{asset}") as answer:
                assert answer.status == 200 and b"https://" not in answer.read()  # no CDN
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "warning: host=0.0.0.0 lets other machines reach this server" in errors


def test_bad_web_settings_are_one_line_and_exit_code_2():
    for overrides, reason in ((["port=70000"], "config port=70000: must be an integer in "
                                               "[0, 65535]"),
                              (["ui=gui"], "ui must be terminal or web"),
                              (["load=game.json"], "load= is for ui=terminal"),
                              (["web.exports=/tmp/out"], "web.exports (/tmp/out) must")):
        done = subprocess.run([sys.executable, "play.py", "ui=web", *overrides], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (overrides, done.stderr)
        assert done.stderr.strip() == done.stderr.strip().splitlines()[0]
        assert done.stderr.startswith(f"error: {reason}"), done.stderr
