"""The ``report`` command: 003's whole experiment (Tables 2-6, Tukey, findings) on any collection."""
