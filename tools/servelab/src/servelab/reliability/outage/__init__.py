"""`servelab outage <drill>`: an outage drill (`[drills.<drill>]` of a family's
loadtests/families/<family>.toml).

The drill starts a compose profile (servelab's Stack), sends requests at a constant rate
with k6 (loadtests/outage.js), SIGKILLs one service's process group `kill_at_s` into the
run, starts it again at `restart_at_s` and waits until its healthcheck passes, all while
k6 keeps sending. Every answer k6 got (when, how long, status, Retry-After) comes back
through k6's CSV output; the drill writes what clients saw before, during and after the
outage, and how soon after the service's return every answer was a success again, to
docs/results/outage-<drill>.md (and .json).

The other kinds of drill (a worker SIGKILLed, SIGTERM, a rolling restart, an nginx reload)
act on the stack as actions says, and each also writes its row (verdicts) to the
reliability report's section of its kind (docs/results/reliability/<kind>.json), joined
from every drill of that kind's saved JSON.

drill finds the drill, run runs it, analysis reads k6's answers (loss: what the action
cost), report renders the page, results writes it and the section.
"""
