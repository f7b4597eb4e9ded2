"""The dashboard's helpers: state (session keys, URL), cached (evalcore calls), figures (plotly), widgets."""
