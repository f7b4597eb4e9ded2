"""The seeds evalcore takes: every input (the command line's ``--seed``, ``seed=`` in Python, the settings
file) is a whole number in 0..:data:`SEED_MAX`, and every seed evalcore derives (repetitions, topic
samples: :func:`evalcore.meta.derive_seeds`) stays within it, so every seed printed can be given back.

The bottom floor: this module imports nothing, so :mod:`evalcore.meta` (which derives seeds) and
:mod:`evalcore.settings` / the command line (which read them) both import it downwards.
"""
from __future__ import annotations

#: Largest seed every input takes (the command line's --seed, the settings file); derived seeds
#: (:func:`evalcore.meta.derive_seeds`) stay within it, so every seed printed can be given back.
SEED_MAX = 2**32 - 1
