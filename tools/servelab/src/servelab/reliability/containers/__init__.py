"""`servelab container-drill <drill>`: a drill against the compose stack under a real
Docker engine (`[container_drills.<drill>]` of a family's loadtests/families/<family>.toml).

The runner starts servelab's private engine, builds the drill's images, brings its
services up with `docker compose up --wait`, sends requests at a constant rate with k6
(loadtests/outage.js) to a published port and, partway through, acts on a container as the
drill's kind says (actions). Nothing is restarted by hand: the restart policies and the
healthchecks of compose.yaml bring the stack back.

Each drill reports what clients lost by kind, the longest gap between two successes, how
long until the stack served again, and what was left on disk (the volumes read back
afterwards); its row goes to the reliability report's section `containers`.

deployed drives the compose project, answers reads k6's answers, disk reads what was
left on disk, actions acts, verdicts judges, run ties them together, results writes the
section.
"""
