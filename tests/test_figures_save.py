"""evalcore.figures.save: slide-shaped files, and the extra to install named when an image writer is missing."""
from __future__ import annotations

import importlib.util
import re

import pandas as pd
import pytest

pytest.importorskip("plotly")
import evalcore.figures as ef  # noqa: E402


def _fig():
    return ef.ranking_bars(pd.DataFrame({"AP": [0.2, 0.5, 0.4]}, index=["a", "b", "c"]), "AP")


@pytest.mark.parametrize("shape,size", [("16:9", (1280, 720)), ("4:3", (1024, 768))])
def test_html_is_written_at_a_slides_shape_without_any_extra(tmp_path, shape, size):
    fig = _fig()
    out = ef.save(fig, tmp_path / "f.html", shape=shape)
    text = (tmp_path / "f.html").read_text()
    assert out.endswith("f.html") and f'"width":{size[0]}' in re.sub(r"\s", "", text)
    assert f'"height":{size[1]}' in re.sub(r"\s", "", text)
    assert fig.layout.width is None                        # the figure itself is left as it was


def test_an_image_without_kaleido_names_the_extra(tmp_path):
    if importlib.util.find_spec("kaleido") is not None:
        pytest.skip("kaleido is installed: the image is written")
    for ext in ("svg", "pdf", "png"):
        with pytest.raises(ImportError, match=r'pip install "evalcore-ir\[image\]"'):
            ef.save(_fig(), tmp_path / f"f.{ext}")
    with pytest.raises(ValueError, match="save writes .svg, .pdf, .png, .html"):
        ef.save(_fig(), tmp_path / "f.jpg")
