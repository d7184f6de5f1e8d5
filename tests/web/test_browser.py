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

from playwright.sync_api import Locator, Page, sync_playwright  # noqa: E402

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
    """Start a game from the rules form (the page's last game, if any, is over)."""
    page.goto(url)
    # The page first reconnects to the game it holds: forget it only once that is done, or
    # the answer would store its id again.
    page.wait_for_function(
        "!sessionStorage.getItem('durak-game') || (view !== null && view.over)",
        timeout=PATIENCE_MS,
    )
    page.evaluate("sessionStorage.clear()")
    page.goto(url)
    page.select_option("#players", str(players))
    for i, spec in enumerate(opponents):
        page.locator(".opponent").nth(i).fill(spec)
    for name, value in fields.items():
        if name in ("variant", "suits", "lowest_rank", "throw_in"):
            page.select_option(f"#{name}", value)
        elif name in ("trumps", "hints"):
            page.set_checked(f"#{name}", value == "on")
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
        page.locator(f'#actions button[data-action="{choice}"]').click()
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


# --- issue 52: cards drawn as SVG, played by clicking them, and the layout ---------------

NUMBERS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
RANK_NAMES = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"} | {
    str(n): w for n, w in zip(range(2, 11), NUMBERS, strict=True)
}
SUIT_NAMES = {"♠": "spades", "♥": "hearts", "♦": "diamonds", "♣": "clubs"}


def card_name(text: str, trump: bool) -> str:
    """A card's name as the page gives it to screen readers."""
    return f"{RANK_NAMES[text[:-1]]} of {SUIT_NAMES[text[-1]]}" + (", trump" if trump else "")


def check_cards_named_and_seen(page: Page) -> None:
    """Every hand card carries its name; every card face on the page is one the view holds
    (so one the person may see); every back is named without a card."""
    view = page.evaluate("view")
    for h in view["hand"]:
        label = page.locator(f'#hand [data-card="{h["card"]}"]').get_attribute("aria-label")
        assert label == card_name(h["card"], h["trump"]), label
    seen = {h["card"] for h in view["hand"]} | {view["trump"]["card"]}
    seen |= {c for p in view["table"] for c in (p["attack"], p["defence"]) if c}
    seen |= {c for s in view["seats"] for c in s["known"]}
    faces = page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
    assert set(faces) <= seen, set(faces) - seen
    backs = page.eval_on_selector_all(".backs", "els => els.map(e => e.getAttribute('aria-label'))")
    for label in backs:
        assert re.fullmatch(r"(talon: )?\d+ hidden cards", label), label


def click_a_card(page: Page, turn: int) -> tuple[str, bool]:
    """Play one of the person's turns through the cards: a hand card that has a use (one
    with several first, then its last target), by mouse, Enter or Space in turn; Take or
    Pass by its button when no card can be played.  The action meant, and whether a target
    was chosen."""
    hand = page.evaluate("view.hand.map(h => [h.card, usesOf(h.card).map(a => a.text)])")
    playable = [(card, uses) for card, uses in hand if uses]
    if not playable:
        text = page.evaluate("view.actions[0].text")
        page.locator(f'#actions button[data-action="{text}"]').click()
        return text, False
    card, uses = max(playable, key=lambda cu: len(cu[1]))
    how = turn % 3

    def press(el: Locator) -> None:
        if how == 0:
            el.click()
        else:
            el.press(("Enter", " ")[how - 1])

    press(page.locator(f'#hand button[data-card="{card}"]'))
    if len(uses) == 1:
        return uses[0], False
    page.wait_for_selector("#game .target", timeout=PATIENCE_MS)
    assert page.evaluate("document.activeElement.classList.contains('target')"), "focus"
    assert page.get_attribute(f'#hand [data-card="{card}"]', "aria-pressed") == "true"
    targets = page.eval_on_selector_all("#game .target", "els => els.map(e => e.dataset.action)")
    assert sorted(targets) == sorted(uses), (targets, uses)
    press(page.locator(f'#game .target[data-action="{uses[-1]}"]'))
    return uses[-1], True


def refused(response: Any, errors: list[str]) -> None:
    """Note an action the server refused."""
    if response.url.endswith("/actions") and response.status != 200:
        errors.append(f"{response.status}: {response.text()}")


def test_a_game_is_played_by_clicking_cards_and_choosing_targets(served: tuple[str, Path]) -> None:
    url, log = served
    played: list[list[str]] = []
    targets_chosen = 0
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 360, "height": 740})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # A click on a view the table has overtaken would be refused (409): none may be.
        page.on("response", lambda r: refused(r, errors))
        for seed in range(1, 9):
            new_game(page, url, 2, ["random"], variant="perevodnoy", seed=str(seed))
            played.append([])
            while True:
                page.wait_for_selector(
                    "#actions button, #result:not([hidden])", timeout=PATIENCE_MS
                )
                if page.is_visible("#result"):
                    break
                assert errors == []
                check_cards_named_and_seen(page)
                version = page.evaluate("view.version")
                action, chose = click_a_card(page, len(played[-1]))
                played[-1].append(action)
                targets_chosen += chose
                page.wait_for_function(
                    f"view.version > {version} || view.over", timeout=PATIENCE_MS
                )
            if targets_chosen:
                break
        browser.close()
    assert errors == []
    assert targets_chosen, "no card with several uses in eight games"
    entries = read_log(log).entries
    assert len(entries) == len(played)
    for entry, mine in zip(entries, played, strict=True):
        assert entry.end == "finished"
        rest = iter(entry.actions)
        assert all(a in rest for a in mine), "an action played is not the one clicked"
        replay_entry(entry, log)


#: Measures the page from its DOM: boxes of cards and controls that overlap by more than a
#: pixel, any of them outside the viewport's width, and text cut off in a labelled element.
LAYOUT_PROBLEMS = (Path(__file__).parent / "layout_problems.js").read_text(encoding="utf-8")


def reach_a_choice(page: Page, url: str) -> None:
    """A 3-player Perevodnoy table against greedy, played by its first action button until
    the person holds a card with several uses (the same position at every width)."""
    for seed in range(21, 41):
        new_game(page, url, 3, ["greedy", "greedy"], variant="perevodnoy", seed=str(seed))
        while True:
            page.wait_for_selector("#actions button, #result:not([hidden])", timeout=PATIENCE_MS)
            if page.is_visible("#result"):
                break
            if page.evaluate("view.hand.some(h => usesOf(h.card).length > 1)"):
                return
            version = page.evaluate("view.version")
            page.locator("#actions button").first.click()
            page.wait_for_function(f"view.version > {version} || view.over", timeout=PATIENCE_MS)
    raise AssertionError("no card with several uses in twenty games")


@pytest.mark.parametrize("width", [360, 1280])
def test_the_table_fits_its_width_without_overlaps_or_clipped_text(
    served: tuple[str, Path], tmp_path: Path, width: int
) -> None:
    url, _ = served
    shots = [tmp_path]
    if os.environ.get("DURAK_DOCS_SCREENSHOTS") == "1":  # refreshes the images of docs/web.md
        shots.append(Path(__file__).resolve().parents[2] / "docs")
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": width, "height": 800})
        page.goto(url)
        page.wait_for_selector(".opponent", timeout=PATIENCE_MS)
        assert page.evaluate(LAYOUT_PROBLEMS) == [], "the rules form"
        reach_a_choice(page, url)
        assert page.evaluate(LAYOUT_PROBLEMS) == [], "the table"
        card = page.evaluate("view.hand.find(h => usesOf(h.card).length > 1).card")
        page.locator(f'#hand button[data-card="{card}"]').click()
        page.wait_for_selector("#game .target", timeout=PATIENCE_MS)
        assert page.evaluate(LAYOUT_PROBLEMS) == [], "the table with targets marked"
        for folder in shots:
            page.screenshot(path=str(folder / f"web-table-{width}.png"), full_page=True)
        browser.close()
    assert (tmp_path / f"web-table-{width}.png").stat().st_size > 0


def test_the_opponent_list_offers_the_learned_agent_only_where_a_network_fits(
    served: tuple[str, Path],
) -> None:
    """Issue 51: at the default table ``dmc`` and ``strongest`` lead the list and the page
    says a network fits; at five players the page says none does, leaves ``dmc`` out, and
    refuses it if typed in anyway."""
    require_extra("torch")
    url, _ = served
    names = "Array.from(document.querySelectorAll('#agent-names option')).map(o => o.value)"
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 360, "height": 800})
        page.goto(url)
        page.wait_for_function(
            "document.getElementById('learned-note').textContent.includes('fits this table')",
            timeout=PATIENCE_MS,
        )
        assert page.evaluate(names)[:2] == ["dmc", "strongest"]
        page.select_option("#players", "5")
        page.wait_for_function(
            "document.getElementById('learned-note').textContent.startsWith('No learned agent')",
            timeout=PATIENCE_MS,
        )
        note = page.inner_text("#learned-note")
        assert "for 5 players, 36 cards" in note and "2 players, 36 cards" in note
        listed = page.evaluate(names)
        assert "dmc" not in listed and "strongest" in listed
        assert page.evaluate(LAYOUT_PROBLEMS) == [], "the rules form with the note"
        page.locator(".opponent").nth(0).fill("dmc")
        page.click("#start")
        page.wait_for_function(
            "document.getElementById('setup-error').textContent.length > 0", timeout=PATIENCE_MS
        )
        assert "no shipped model for 5 players" in page.inner_text("#setup-error")


# --- issue 52: a hint on request ----------------------------------------------------------


def test_a_hint_is_shown_and_followed(served: tuple[str, Path], tmp_path: Path) -> None:
    """Ask for a hint (the Hint button, or the H key), see every legal action with its
    value and share and the suggested one marked, and play it by its action button."""
    url, _ = served
    shots = [tmp_path]
    if os.environ.get("DURAK_DOCS_SCREENSHOTS") == "1":  # refreshes the images of docs/web.md
        shots.append(Path(__file__).resolve().parents[2] / "docs")
    followed: list[str] = []
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 360, "height": 740})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        new_game(page, url, 2, ["random"], seed="5")
        while len(followed) < 3:
            page.wait_for_selector("#actions button, #result:not([hidden])", timeout=PATIENCE_MS)
            if page.is_visible("#result"):
                break
            version = page.evaluate("view.version")
            if page.evaluate("view.actions.length") > 1:
                if followed:
                    page.click("#hint")
                else:
                    page.locator("#hint").focus()
                    page.keyboard.press("h")
                page.wait_for_selector("#hint-panel li.suggested", timeout=PATIENCE_MS)
                hint = page.evaluate("hint")
                actions = page.evaluate("view.actions.map(a => a.text)")
                assert hint["version"] == version
                assert page.locator("#hint-panel li").count() == len(actions)
                assert page.evaluate("document.activeElement.classList.contains('suggested')")
                marked = page.locator("#actions button.suggested")
                assert marked.count() == 1
                assert marked.get_attribute("data-action") == hint["suggested"]
                label = marked.get_attribute("aria-label") or ""
                assert label.endswith("(suggested by the hint)"), label
                for a in hint["actions"]:
                    assert a["text"] in page.inner_text("#hint-panel")
                assert page.evaluate(LAYOUT_PROBLEMS) == [], "the table with a hint"
                if not followed:
                    for folder in shots:
                        page.screenshot(path=str(folder / "web-hint-360.png"), full_page=True)
                marked.click()
                followed.append(hint["suggested"])
                page.wait_for_function(f"view.version > {version}", timeout=PATIENCE_MS)
                mine = page.evaluate("view.history.filter(m => m.seat === view.you)")
                assert mine[-1]["action"] == hint["suggested"], "not the suggested action"
                assert page.is_hidden("#hint-panel") or page.evaluate("view.over"), "stale"
                continue
            page.locator("#actions button").first.click()
            page.wait_for_function(f"view.version > {version} || view.over", timeout=PATIENCE_MS)
        browser.close()
    assert errors == []
    assert len(followed) == 3, followed
    assert (tmp_path / "web-hint-360.png").stat().st_size > 0


def test_a_table_without_hints_shows_no_hint_button(served: tuple[str, Path]) -> None:
    url, _ = served
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page()
        new_game(page, url, 2, ["random"], seed="5", hints="off")
        page.wait_for_selector("#actions button", timeout=PATIENCE_MS)
        assert page.evaluate("view.hints") is False
        assert page.is_hidden("#hint")
        page.keyboard.press("h")  # the key does nothing either
        assert page.is_hidden("#hint-panel")
        browser.close()
