"""The collections a session can analyse: the simulated one, the papers' worked examples, an upload.

The sidebar's dataset choice picks one (:func:`current_collection`); an upload is parsed by
:mod:`dashboard.uploads` and kept in the session as ``uploaded``.
"""
from __future__ import annotations

import streamlit as st

import evalcore
from evalcore.collection import Collection

from . import state


@st.cache_resource(max_entries=8, show_spinner="Simulating a collection ...")
def simulated(n_topics: int, n_runs: int, seed: int) -> Collection:
    return evalcore.simulated_collection(n_topics=n_topics, n_runs=n_runs, seed=seed)


@st.cache_resource
def examples() -> Collection:
    return evalcore.paper_examples()


def example_notes() -> dict[str, str]:
    from evalcore.simulate import PAPER_EXAMPLE_NOTES
    return dict(PAPER_EXAMPLE_NOTES)


def current_collection() -> Collection:
    """The collection the sidebar's dataset choice points at."""
    ss = st.session_state
    ds = ss.get("dataset", "sim")
    if ds == "upload" and ss.get("uploaded") is not None:
        return ss["uploaded"]
    if ds == "examples":
        return examples()
    return simulated(n_topics=int(state.value("sim_topics")), n_runs=int(state.value("sim_runs")),
                     seed=int(state.value("sim_seed")))
