"""Entry editor and corpus API (Django)."""
