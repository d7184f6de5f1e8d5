"""End to end in a real browser: ``durak serve`` driven by Playwright in Debian's Chromium.

Playwright cannot download its own browser here, so the test launches
``/usr/bin/chromium`` (``make test`` installs it with apt-get).  Every wait is for an
element to appear, never a sleep.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("uvicorn")
require_extra("playwright")

from playwright.sync_api import Page, sync_playwright  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # noqa: E402

from durak.arena.gamelog.files import read_log  # noqa: E402
from durak.arena.gamelog.replay import replay_entry  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
#: Flags for a sandboxed, offline, headless Chromium run as root.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: The longest a step may take before the test fails (reached only when something is wrong).
PATIENCE_MS = 30_000


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    if not CHROMIUM.exists():
        if os.environ.get("DURAK_REQUIRE_EXTRAS") == "1":
            pytest.fail(f"{CHROMIUM} is required (make test installs Debian's chromium)")
        pytest.skip(f"{CHROMIUM} is missing")
    log = tmp_path / "web.jsonl"
    args = ["serve", "--port", "0", "--log", str(log)]
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "durak"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        # Printed once the port listens: connections wait in its backlog from then on.
        banner = server.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
        assert found, banner
        yield found.group(0), log
    finally:
        server.terminate()
        server.wait(30)


def new_game(page: Page, url: str, players: int, opponents: list[str], **fields: str) -> None:
    page.goto(url)
    page.evaluate("sessionStorage.clear()")
    page.goto(url)
    page.select_option("#players", str(players))
    for i, spec in enumerate(opponents):
        page.locator(".opponent").nth(i).fill(spec)
    for name, value in fields.items():
        if name in ("variant", "deck", "throw_in"):
            page.select_option(f"#{name}", value)
        else:
            page.fill(f"#{name}", value)
    page.click("#start")


def play_to_the_end(page: Page, prefer: str | None = None) -> list[str]:
    """Click ``data-action`` buttons (``prefer``'s prefix first) until the result shows;
    the actions clicked."""
    clicked: list[str] = []
    while True:
        page.wait_for_selector("#actions button, #result:not([hidden])", timeout=PATIENCE_MS)
        if page.is_visible("#result"):
            return clicked
        buttons = page.locator("#actions button")
        actions = [
            buttons.nth(i).get_attribute("data-action") or "" for i in range(buttons.count())
        ]
        choice = next((a for a in actions if prefer and a.startswith(prefer)), actions[0])
        version = page.evaluate("view.version")
        try:
            page.locator(f'#actions button[data-action="{choice}"]').click(timeout=PATIENCE_MS)
        except PlaywrightTimeoutError:
            # The view changed between reading the buttons and clicking (the button was
            # replaced): read the new ones; a view that did not change is a real failure.
            if page.evaluate("view.version") == version:
                raise
            continue
        clicked.append(choice)
        # The click was answered: the page shows a newer view (or the result).
        page.wait_for_function(f"view.version > {version} || view.over", timeout=PATIENCE_MS)


def launch(p: Any) -> Any:
    return p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)


def test_a_person_plays_a_game_against_random_in_the_browser(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = served
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page()
        new_game(page, url, 2, ["random"], seed="7")
        page.wait_for_selector("#hand .card", timeout=PATIENCE_MS)
        assert page.locator("#seats .seat").count() == 2
        assert page.locator("#trump").inner_text().startswith("trump")
        clicked = play_to_the_end(page)
        assert clicked, "the person made no move"
        result = page.inner_text("#result-text")
        assert "durak" in result or "draw" in result
        page.screenshot(path=str(tmp_path / "table.png"), full_page=True)
        browser.close()
    assert (tmp_path / "table.png").stat().st_size > 0
    entries = read_log(log).entries
    assert len(entries) == 1 and entries[0].end == "finished" and entries[0].seed == 7
    replay_entry(entries[0], log)


def test_a_three_player_perevodnoy_game_with_a_transfer(served: tuple[str, Path]) -> None:
    url, log = served
    transferred = False
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page()
        for seed in range(1, 6):
            new_game(page, url, 3, ["random", "random"], variant="perevodnoy", seed=str(seed))
            clicked = play_to_the_end(page, prefer="Transfer(")
            if any(a.startswith("Transfer(") for a in clicked):
                transferred = True
                break
        browser.close()
    assert transferred, "no transfer in five games"
    for entry in read_log(log).entries:
        assert entry.rules.transfer and entry.rules.players == 3
        replay_entry(entry, log)
