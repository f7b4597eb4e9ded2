"""The dashboard's helpers, one concern a module (docs/dashboard.md, "Layout"): state (session keys, URL),
the evalcore calls (scoring, ranks, gainsets, meta_store, significance, uploads, ...), widgets."""
