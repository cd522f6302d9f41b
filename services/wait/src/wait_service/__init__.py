"""Endpoints that wait, or burn CPU, for a configured time: how servers handle slow requests."""
