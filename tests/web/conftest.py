"""Fixtures of the web player's tests: its settings over a temporary outputs folder, an HTTP
test client, a real server on a free port in a thread, and a headless Chromium driven by
Playwright (Debian's /usr/bin/chromium: Playwright's own browser download needs the internet)."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest
import uvicorn
from starlette.testclient import TestClient

from ui.terminal import PlayConfig
from web.app import create_app
from web.config import WebConfig
from web.server import address, listen

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def make_config(outputs: Path, **overrides) -> WebConfig:
    outputs.mkdir(parents=True, exist_ok=True)
    settings = {"folders": [str(outputs)], "exports": str(outputs / "play"), **overrides}
    return WebConfig(PlayConfig(agents=["human", "heuristic"]), {"name": "blockade"},
                     "blockade", str(ROOT / "configs" / "env"), **settings)


@pytest.fixture
def outputs(tmp_path) -> Path:
    return tmp_path / "outputs"


@pytest.fixture
def client(outputs) -> TestClient:
    return TestClient(create_app(make_config(outputs)), base_url="http://127.0.0.1")


class LiveServer:
    """A web player on a free local port, serving from a thread."""

    def __init__(self, config: WebConfig):
        self.config = config
        sock = listen("127.0.0.1", 0)
        self.url = address(sock)
        self.server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    server = LiveServer(make_config(tmp_path_factory.mktemp("web") / "outputs"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium; skipped where it is genuinely absent, never under CI."""
    missing = None
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        missing = f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[dev]')"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run under CI: {missing}")
        pytest.skip(missing)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"the page raised: {errors}"
