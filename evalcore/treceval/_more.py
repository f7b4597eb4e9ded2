"""The rest of trec_eval's ``all_trec`` measures (filled in by the modules below)."""
from __future__ import annotations
