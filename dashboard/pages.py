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


PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview.py", "Overview", ":material/dashboard:", "overview", True),
    PageSpec("data.py", "Data", ":material/database:", "data", False),
    PageSpec("playground.py", "Metric playground", ":material/school:", "playground", True),
    PageSpec("rankings.py", "Rankings", ":material/leaderboard:", "rankings", True),
    PageSpec("correlation.py", "Rank correlation", ":material/grid_on:", "correlation", True),
    PageSpec("gains.py", "Which gains should I report?", ":material/tune:", "gains", True),
    PageSpec("swap.py", "Swap method", ":material/swap_horiz:", "swap", True),
    PageSpec("bootstrap.py", "Bootstrap sensitivity", ":material/ssid_chart:", "bootstrap", True),
    PageSpec("significance.py", "Significance & topic sets", ":material/functions:", "significance", True),
    PageSpec("stability.py", "Stability", ":material/balance:", "stability", True),
    PageSpec("lesson.py", "Lesson: 003 in four steps", ":material/co_present:", "lesson", False),
    PageSpec("report.py", "Report", ":material/description:", "report", False, "Build the report"),
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
