"""The docs site's rewriting of Sphinx roles and doctest blocks (``tools/docs_roles.py``)."""

from __future__ import annotations

from docs_roles import fence_doctests


def test_a_doctest_block_is_fenced_up_to_the_blank_line() -> None:
    text = "Says:\n\n    >>> 1 + 1\n    2\n\nThen more."
    assert fence_doctests(text) == (
        "Says:\n\n    ```pycon\n    >>> 1 + 1\n    2\n    ```\n\nThen more."
    )


def test_a_doctest_at_the_end_or_in_a_fence_is_left_whole() -> None:
    assert fence_doctests(">>> x\n1") == "```pycon\n>>> x\n1\n```"
    fenced = "```python\n>>> x\n```"
    assert fence_doctests(fenced) == fenced
