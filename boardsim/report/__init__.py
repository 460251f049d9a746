"""Turning aggregates into tidy tables, PNG charts and an index.html."""
