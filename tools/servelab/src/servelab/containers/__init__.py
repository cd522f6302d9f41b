"""Containers for real: a private Docker engine (engine), the one the user's docker command
line points at (current), compose.yaml under an engine (compose), and the compose binary
linked where `docker compose` looks for it (plugin)."""
