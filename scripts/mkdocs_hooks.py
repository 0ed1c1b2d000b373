"""mkdocs hooks for assay's site (mkdocs.yml): a link from a page to a file of the
repository outside docs/ (an example's README, bench/RESULTS.md) is checked to exist,
then shown as the file's path, since the site holds docs/ alone; a missing one is a
warning, which ``mkdocs build --strict`` turns into a failure."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.assay")

_LINK = re.compile(r"\[([^\]]+)\]\(([^)#:\s]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """The page's Markdown, its links to repository files outside docs/ made paths."""
    docs = Path(config["docs_dir"]).resolve()
    root = docs.parent
    here = (docs / page.file.src_path).parent

    def outside(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        resolved = (here / target).resolve()
        if resolved.is_relative_to(docs):
            return match.group(0)  # mkdocs checks links inside the site itself
        if not resolved.exists():
            log.warning("%s links %s, which does not exist", page.file.src_path, target)
            return match.group(0)
        return f"{text} (`{resolved.relative_to(root).as_posix()}` in the repository)"

    return _LINK.sub(outside, markdown)
