"""The review page in a real browser (Playwright in Debian's Chromium, as
``tests/web/test_browser.py``): a game played to its end, its review opened from the
table's link and stepped through by buttons and keys, at 360 and 1280 px."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("uvicorn")
require_extra("playwright")

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from durak.arena.gamelog.files import read_log  # noqa: E402
from tests.web.test_browser import (  # noqa: E402
    LAYOUT_PROBLEMS,
    PATIENCE_MS,
    launch,
    new_game,
    play_to_the_end,
    served,  # noqa: F401  (the fixture)
)


def shown_decision(page: Page) -> dict[str, Any]:
    """The decision the page shows, as the review holds it; checked against the page."""
    step = int(page.get_attribute("#where", "data-step") or "0")
    decision: dict[str, Any] = page.evaluate(f"review.decisions.find(d => d.step === {step})")
    assert page.get_attribute("#verdict", "data-played") == decision["played"]
    assert page.get_attribute("#verdict", "data-chosen") == decision["chosen"]
    # Every card face is one of the position's (the person saw it); backs name no card.
    p = decision["position"]
    seen = {h["card"] for h in p["hand"]} | {p["trump"]["card"]}
    seen |= {c for pair in p["table"] for c in (pair["attack"], pair["defence"]) if c}
    seen |= {c for s in p["seats"] for c in s["known"]}
    faces = page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
    assert set(faces) <= seen and {h["card"] for h in p["hand"]} <= set(faces)
    backs = page.eval_on_selector_all(".backs", "els => els.map(e => e.getAttribute('aria-label'))")
    assert all(re.fullmatch(r"(talon: )?\d+ hidden cards", label) for label in backs), backs
    return decision


def test_a_review_is_opened_after_a_game_and_stepped_through(
    served: tuple[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    url, log = served
    shots = [tmp_path]
    if os.environ.get("DURAK_DOCS_SCREENSHOTS") == "1":  # refreshes the images of docs/web.md
        shots.append(Path(__file__).resolve().parents[2] / "docs")
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 360, "height": 740})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        new_game(page, url, 2, ["random"], seed="3", lowest_rank="10", hand_size="4")
        play_to_the_end(page)
        game = page.evaluate("view.game")
        link = page.locator("#review-link")
        assert link.get_attribute("href") == f"/review/{game}"
        link.click()
        page.wait_for_selector("#review:not([hidden])", timeout=PATIENCE_MS)
        review = page.evaluate("review")
        decisions = review["decisions"]
        assert len(decisions) > 2 and review["seat"] == 0
        entry = read_log(log).entries[-1]
        assert [d["played"] for d in decisions] == [entry.actions[d["step"] - 1] for d in decisions]
        assert shown_decision(page) == decisions[0]
        assert page.is_disabled("#prev") and not page.is_disabled("#next")
        page.keyboard.press("ArrowRight")
        assert shown_decision(page) == decisions[1]
        page.click("#next")
        assert shown_decision(page) == decisions[2]
        page.keyboard.press("ArrowLeft")
        assert shown_decision(page) == decisions[1]
        page.keyboard.press("End")
        assert shown_decision(page) == decisions[-1] and page.is_disabled("#next")
        page.keyboard.press("Home")
        assert shown_decision(page) == decisions[0]
        # The mistakes, largest first, each a way to its decision.
        buttons = page.locator("#mistakes button")
        assert buttons.count() == len(review["mistakes"])
        if review["mistakes"]:
            buttons.first.click()
            assert shown_decision(page)["step"] == review["mistakes"][0]
            assert page.evaluate("document.activeElement.id") == "verdict"
        for width in (360, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            assert page.evaluate(LAYOUT_PROBLEMS) == [], width
            for folder in shots:
                page.screenshot(path=str(folder / f"web-review-{width}.png"), full_page=True)
        browser.close()
    assert errors == []
    assert (tmp_path / "web-review-360.png").stat().st_size > 0
