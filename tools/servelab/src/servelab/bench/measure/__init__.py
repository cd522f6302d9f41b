"""Measuring a cell: the server's CPU time, memory and peaks, CPU steal, the database's
connections, the machine and its CPUs, and k6's summary read as figures."""
