"""A page asked for more work than evalcore.workload allows says so in an error box naming the product and
the limit, instead of computing for hours: the same check and limits as the command line's."""
from __future__ import annotations

import html

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402
from test_app import APP  # noqa: E402


@pytest.mark.slow      # a 100-run x 100-topic collection simulated and drawn
def test_a_link_asking_the_bootstrap_page_for_hours_of_work_is_refused_with_the_product():
    # 100 simulated runs (4,950 pairs) x 100 topics x B = 100,000 x the sidebar's 8 metrics: every setting within
    # its own bounds, 4.0e11 terms together
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update({"nt": "100", "nr": "100", "bsb": "100000"})
    at.switch_page("views/bootstrap.py").run()          # the link opens this page first
    assert not at.exception, [e.message for e in at.exception]
    errors = [html.unescape(e.value) for e in at.error]          # the page shows characters as references
    # the page's limit: 600 s of one core at the bootstrap's 5e8 terms a second (evalcore.workload.PAGE_SECONDS)
    assert any("4,950 run pairs" in e and "B = 100,000" in e and "100 topics" in e and "8 metrics" in e
               and "= 4.0e11" in e and "the limit for a page is 3.0e11" in e for e in errors), errors
