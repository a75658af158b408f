"""Fixtures of the web player's tests: its settings over a temporary outputs folder, an HTTP
test client, a real server on a free port in a thread (``web.server.Background``), and
Debian's headless Chromium driven by Playwright (``web.browser``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ui.settings import PlayConfig, WebSettings
from web.app import create_app
from web.browser import CHROMIUM, launch_chromium
from web.config import WebConfig
from web.server import Background

ROOT = Path(__file__).resolve().parents[2]


def make_config(outputs: Path, **web) -> WebConfig:
    """The server's config with ``outputs`` as its one folder, and ``web`` settings."""
    outputs.mkdir(parents=True, exist_ok=True)
    settings = WebSettings(folders=(str(outputs),), exports=str(outputs / "play"), **web)
    return WebConfig(PlayConfig(web=settings), {"name": "blockade"}, "blockade",
                     str(ROOT / "configs" / "env"))


@pytest.fixture
def outputs(tmp_path) -> Path:
    return tmp_path / "outputs"


@pytest.fixture
def client(outputs) -> TestClient:
    return TestClient(create_app(make_config(outputs)), base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    server = Background(make_config(tmp_path_factory.mktemp("web") / "outputs"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium; skipped where it is genuinely absent, never under CI."""
    missing = None
    if not Path(CHROMIUM).exists():
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
        chromium = launch_chromium(playwright)
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
