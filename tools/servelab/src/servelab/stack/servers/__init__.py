"""The database and the cache a stack uses: the machine's, or private ones it starts.

settings reads where the user points the runner (SERVELAB_MARIADB, SERVELAB_REDIS) and
decides between that, the default address and a private server, mariadb and redis say how
each private server is set up and started, process finds their binaries and runs one in a
process group of its own, and pool shares the private servers among the stacks and scratch
databases of a process.
"""

from servelab.stack.servers.pool import Lease, Servers, servers
from servelab.stack.servers.settings import Kind, ServerSettings

__all__ = ["Kind", "Lease", "ServerSettings", "Servers", "servers"]
