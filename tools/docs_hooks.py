"""MkDocs hooks of the API reference site (``mkdocs.yml``, ``make docs``).

The pages of ``docs/`` are written to be read in the repository too, so a few of their
links leave ``docs/``; the site keeps them working instead of the pages changing:

* a page whose text is ``<!-- include: FILE -->`` is the repository file ``FILE``
  (``README.md`` is the home page, ``CHANGELOG.md`` the changelog), its links into
  ``docs/`` made relative to the site, and its links to the site's entry page and to the
  root's release files made to point at the site's pages or shown as names;
* the learning curves that ``docs/`` shows from ``training/`` are copied into the site,
  and ``../training/...`` links point at the copies; ``../README.md`` is the home page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
#: Files the README links to that are not pages of the site: shown as their names.
OUTSIDE = ("LICENSE", "CITATION.cff")
INCLUDE = re.compile(r"\A\s*<!-- include: (?P<file>[\w.-]+) -->\s*\Z")


def on_files(files: Files, config: MkDocsConfig, **kwargs: Any) -> Files:
    """Add the images of ``training/`` to the site, under ``training/``."""
    for image in sorted((ROOT / "training").rglob("*.png")):
        path = image.relative_to(ROOT).as_posix()
        files.append(File(path, str(ROOT), config.site_dir, config.use_directory_urls))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, **kwargs: Any) -> str:
    """The page's Markdown with the links that leave ``docs/`` pointed into the site."""
    included = INCLUDE.fullmatch(markdown)
    if included:
        markdown = (ROOT / included.group("file")).read_text(encoding="utf-8")
        markdown = markdown.replace("](docs/", "](").replace("](site/index.html)", "](index.md)")
        markdown = markdown.replace("](CHANGELOG.md)", "](changelog.md)")
        for name in OUTSIDE:  # files of the repository that the site does not hold
            markdown = markdown.replace(f"[{name}]({name})", f"`{name}`")
    markdown = markdown.replace("](../training/", "](training/")
    return markdown.replace("](../README.md", "](index.md")
