"""The local runner: compose.yaml's profiles as local process groups (`servelab up`).

compose reads compose.yaml, stack starts and stops a profile's services, attached and
nginx map infrastructure images to what the machine runs, groups, logs, ports, sessions
and watchdog are the process plumbing.
"""

from servelab.stack.stack import Running, Stack, StackError

__all__ = ["Running", "Stack", "StackError"]
