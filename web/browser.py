"""The browser that drives the web player outside a person's hands: the tests (tests/web), the
speed benchmark and the docs' screenshot script launch Debian's Chromium through Playwright
(Playwright's own browser download needs the internet, which CI does not have)."""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run")
"""Headless as root, and quiet: without the background-networking flags Chromium keeps trying
to reach its services."""


def launch_chromium(playwright):
    """A headless Chromium from ``sync_playwright()``'s (or the async API's) object."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
