"""The documentation: the site builds with no warning (no dead link, missing page or bad API reference),
its pages fetch nothing from the network, and the README is short and links only to files that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# Markdown links and images, and the src/href of HTML tags, in the README.
_MD_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HTML_LINK = re.compile(r"""\b(?:src|href)=["']([^"']+)["']""")
# What a page would fetch from elsewhere: scripts, style sheets, fonts, images.
_REMOTE = re.compile(
    r"""<script[^>]+src=["']https?:|<link[^>]+href=["']https?:[^"']*["'][^>]*rel=["']?(?:stylesheet|preload)"""
    r"""|<link[^>]+rel=["']?(?:stylesheet|preload)[^>]+href=["']https?:|<img[^>]+src=["']https?:"""
    r"""|@import\s+url\(["']?https?:|fonts\.googleapis|fonts\.gstatic""",
    re.I,
)


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into docs/ (limit 250)"


def test_readme_relative_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    targets = _MD_LINK.findall(text) + _HTML_LINK.findall(text)
    assert targets, "no links found in README.md: the pattern is wrong"
    dead = []
    for target in targets:
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue  # a URL (https:, mailto:) or an anchor in the README itself
        path = target.split("#", 1)[0]
        if not (ROOT / path).exists():
            dead.append(target)
    assert not dead, f"README.md links to files that do not exist: {dead}"


def test_site_builds_strict_and_offline(tmp_path: Path) -> None:
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason="the docs extra (mkdocs, mkdocs-material, mkdocstrings[python])")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    warnings = [line for line in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)]
    assert not warnings, "mkdocs build warned:\n" + "\n".join(warnings)

    pages = sorted(site.rglob("*.html"))
    names = {p.relative_to(site).as_posix() for p in pages}
    for page in ("index.html", "architecture.html", "figures.html", "reference/core.html"):
        assert page in names, f"the site has no {page}; it has {sorted(names)}"
    remote = {
        p.relative_to(site).as_posix(): m.group(0)
        for p in pages
        if (m := _REMOTE.search(p.read_text(encoding="utf-8")))
    }
    assert not remote, f"pages fetch from the network: {remote}"
    # The architecture diagram is the rendered SVG, shipped with the site.
    assert (site / "diagrams" / "architecture.svg").is_file()
