"""Driving the load: k6 and the write-ups' own tools, their requests and output, the load
shapes and their rounds, a remote target, the payload."""
