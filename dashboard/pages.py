"""The one list of the dashboard's pages: app.py builds its navigation from it and
the page tests (AppTest and the real browser) walk it, so a page added here is
served, linked and tested.

No streamlit import: this is plain data.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """One page: its script under ``views/``, its title and icon, its own path
    (``/<url_path>``) and whether it draws a chart without any button press."""

    file: str
    title: str
    icon: str
    url_path: str
    has_chart: bool
    button: str | None = None     # a button the browser test presses twice (the Report's "Build")

    @property
    def script(self) -> str:
        """Path of the script relative to app.py (``views/overview.py``)."""
        return f"views/{self.file}"


#: Each page's icon is an emoji: Streamlit 1.67's frontend makes the current page's icon the browser tab's
#: favicon, and fetches a ":material/...:" one from fonts.gstatic.com (a request to a third party from every
#: student's browser, and no icon offline). Icons inside a page (buttons, alerts) come from the Material
#: Symbols font Streamlit serves itself, and stay.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview.py", "Overview", "\U0001f4ca", "overview", True),
    PageSpec("data.py", "Data", "\U0001f5c2\ufe0f", "data", False),
    PageSpec("playground.py", "Metric playground", "\U0001f393", "playground", True),
    PageSpec("rankings.py", "Rankings", "\U0001f3c6", "rankings", True),
    PageSpec("correlation.py", "Rank correlation", "\U0001f517", "correlation", True),
    PageSpec("gains.py", "Which gains should I report?", "\U0001f39a\ufe0f", "gains", True),
    PageSpec("swap.py", "Swap method", "\U0001f500", "swap", True),
    PageSpec("bootstrap.py", "Bootstrap sensitivity", "\U0001f4c8", "bootstrap", True),
    PageSpec("significance.py", "Significance & topic sets", "\U0001f9ee", "significance", True),
    PageSpec("stability.py", "Stability", "\u2696\ufe0f", "stability", True),
    PageSpec("lesson.py", "Lesson: Sakai 2007 in four steps", "\U0001f4d6", "lesson", False),
    PageSpec("report.py", "Report", "\U0001f4dd", "report", False, "Build the report"),
)

#: The page the site's root (``/``) shows. It is also served at its own path
#: (``/overview``): Streamlit serves its default page only at the root, so the root is a
#: hidden second entry running the same script.
HOME = PAGES[0]
#: Internal name of the root entry (never shown; Streamlit needs a unique one per entry).
ROOT_NAME = "home"


def by_name(name: str) -> PageSpec:
    """The page whose file stem or path is ``name`` (``"rankings"``)."""
    for p in PAGES:
        if name in (p.url_path, p.file[:-3]):
            return p
    raise KeyError(f"no page {name!r}; pages: {', '.join(p.url_path for p in PAGES)}")
