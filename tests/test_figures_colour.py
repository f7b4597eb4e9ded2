"""Colours a student reads in greyscale and with a colour-vision deficiency (WCAG 2.1 1.4.1, "use of colour").

The simulation is Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of
color vision deficiency", severity 1.0 (dichromacy): their published 3 x 3 matrices applied to linear sRGB.
Distances are CIE 1976 Delta E in CIELAB (D65), written out here from the sRGB and CIE definitions, not taken
from evalcore. A Delta E of about 2.3 is a just-noticeable difference; 15 is "clearly another colour".
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from evalcore.figures._style import METRIC_COLOR_ORDER, METRIC_COLORS, OKABE_ITO, SEQUENTIAL

MACHADO_2009 = {   # severity 1.0, linear RGB
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
    "typical vision": np.eye(3).tolist(),
}


def _linear(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                    [0.0193339, 0.1191920, 0.9503041]]) @ np.clip(linear_rgb, 0, 1)
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_the_conversion_gives_the_textbook_values():
    # white L* 100, black 0, sRGB mid grey #777777 L* 50.0 (CIE: L* of Y = 0.184); pure red (53.24, 80.09, 67.20)
    assert _lab(_linear("#FFFFFF")) == pytest.approx([100, 0, 0], abs=0.01)
    assert _lab(_linear("#000000")) == pytest.approx([0, 0, 0], abs=0.01)
    assert _lab(_linear("#777777"))[0] == pytest.approx(50.0, abs=0.1)
    assert _lab(_linear("#FF0000")) == pytest.approx([53.24, 80.09, 67.20], abs=0.05)


@pytest.mark.parametrize("vision", list(MACHADO_2009))
def test_the_default_metrics_colours_stay_apart_for_colour_blind_viewers(vision):
    """The eight metrics the dashboard shows by default, drawn in one chart, stay clearly apart (Delta E >= 15)
    for each dichromacy."""
    m = np.array(MACHADO_2009[vision])
    lab = {k: _lab(m @ _linear(METRIC_COLORS[k])) for k in METRIC_COLOR_ORDER}
    gaps = {(a, b): float(np.linalg.norm(lab[a] - lab[b])) for a, b in itertools.combinations(METRIC_COLOR_ORDER, 2)}
    closest = min(gaps, key=gaps.__getitem__)
    assert gaps[closest] >= 15, f"{vision}: {closest} only Delta E {gaps[closest]:.1f} apart"


def test_yellow_the_one_okabe_ito_colour_hard_on_white_is_kept_out_of_the_metrics():
    assert OKABE_ITO[-1] == "#F0E442" and "#F0E442" not in METRIC_COLORS.values()


def test_the_heatmaps_scale_reads_in_greyscale():
    """Lightness alone orders the sequential scale (Kendall heatmaps, swap and bootstrap tables): L* rises at
    every stop by at least 5, so a greyscale print keeps the order of the values."""
    positions = [p for p, _ in SEQUENTIAL]
    assert positions == sorted(positions) and positions[0] == 0 and positions[-1] == 1
    lightness = [_lab(_linear(c))[0] for _, c in SEQUENTIAL]
    assert min(np.diff(lightness)) >= 5, lightness
    for vision, m in MACHADO_2009.items():      # and for every dichromacy
        seen = [_lab(np.array(m) @ _linear(c))[0] for _, c in SEQUENTIAL]
        assert min(np.diff(seen)) > 0, (vision, seen)
