"""How many sessions are using this server now, and whether the Overview's resampling charts follow the sliders.

The Overview's bootstrap and swap charts (Sakai 2007 Tables 3-4, B = 1000 by default) are recomputed at
every gain move for every graded metric: about two thirds of an Overview move's server CPU
(docs/benchmarks.md section 16.5). One server process runs its sessions' scripts one at a time (one
interpreter), so under a class each move waits for everyone else's, and with these charts live a class's
moves settled several times later than without them (docs/benchmarks.md sections 16.6 and 17). So:

- while at most :func:`live_sessions` sessions have used the server within the last :data:`WINDOW_S`
  seconds, the charts follow every move (one user, a small group);
- with more, they are computed when asked (a button on the Overview): the last ones stay on screen, labelled
  with the settings they were computed at, and a result any session has already computed at the current
  settings is drawn at once. The Bootstrap and Swap pages always compute (a user opened them to).

The setting: ``EVALCORE_LIVE_RESAMPLING_SESSIONS`` (default :data:`DEFAULT_LIVE`; 0: always on request;
a large number: always live). A "session" is a browser tab; one counts as active for :data:`WINDOW_S`
seconds after its last script run (a move, a click, a page switch). Pure Python: no streamlit.
"""
from __future__ import annotations

import threading
import time

from .budget import whole_number_setting

ENV = "EVALCORE_LIVE_RESAMPLING_SESSIONS"
#: sessions up to which the Overview's resampling charts stay live: as many as can move at once and still
#: settle within the interactive target (the CPU of a live Overview move: docs/benchmarks.md section 17)
DEFAULT_LIVE = 4
#: the range the setting accepts
LIVE_RANGE = (0, 100_000)
#: a session counts as active this long after its last script run (seconds)
WINDOW_S = 60.0
#: sessions remembered at most (the oldest are forgotten first; far above any class)
MAX_TRACKED = 10_000

_lock = threading.Lock()
_last: dict[str, float] = {}


def live_sessions(env: dict | None = None) -> int:
    """``EVALCORE_LIVE_RESAMPLING_SESSIONS``, else :data:`DEFAULT_LIVE`.

    Raises ValueError naming the setting for a value that is not a whole number in :data:`LIVE_RANGE`.
    """
    n = whole_number_setting(ENV, *LIVE_RANGE, "0: the Overview's resampling charts always on request",
                             unit="sessions", env=env)
    return DEFAULT_LIVE if n is None else n


def note(session: str, now: float | None = None) -> None:
    """Record a script run of ``session`` (any string that identifies a browser tab)."""
    now = time.monotonic() if now is None else now
    with _lock:
        _last.pop(session, None)
        _last[session] = now                      # insertion order = last activity order
        while len(_last) > MAX_TRACKED:
            _last.pop(next(iter(_last)))


def active(now: float | None = None, window: float = WINDOW_S) -> int:
    """Sessions with a script run within the last ``window`` seconds (older entries are forgotten)."""
    now = time.monotonic() if now is None else now
    with _lock:
        while _last and next(iter(_last.values())) < now - window:
            _last.pop(next(iter(_last)))
        return len(_last)


def resampling_live(limit: int, now: float | None = None) -> tuple[bool, int]:
    """(whether the Overview's resampling follows the sliders, the active sessions counted): live while
    at most ``limit`` sessions are active."""
    n = active(now)
    return n <= limit, n
