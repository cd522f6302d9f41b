# servelab entry points. Each target bootstraps first (idempotent: installs only what is missing).
PROFILE ?= uvicorn
UV = $(shell command -v uv 2>/dev/null || echo python3 -m uv)
RUN = $(UV) run --frozen

.PHONY: bootstrap bench bench-all bench-full reference reference-full reliability test test-fast lint audit up down

bootstrap:
	@scripts/bootstrap.sh

## make bench: the quick benchmark of every family, then its findings.md (every write-up
## question answered from this run alone), into a folder of this machine's own (RESULTS,
## git-ignored: results/<hostname>/), each answer then compared with the committed reference
## in docs/results/. The reliability suite is make reliability; make bench-all runs both.
MACHINE ?= $(shell hostname)
RESULTS ?= results/$(MACHINE)
bench: export SERVELAB_RESULTS = $(RESULTS)
bench: bootstrap
	@echo "servelab: this run goes to $(RESULTS)/; docs/results/ stays as committed"
	$(RUN) servelab bench --quick
	$(RUN) servelab findings --against docs/results
	@echo "servelab: reports and findings.md of this run in $(RESULTS)/"

## make bench-all: make bench, then make reliability into the same folder (FORM=full: the
## full forms of both). The reliability suite runs even where a benchmark failed.
bench-all: export SERVELAB_RESULTS = $(RESULTS)
bench-all: bootstrap
	@+$(MAKE) --no-print-directory $(if $(filter full,$(FORM)),bench-full,bench); bench=$$?; \
	$(MAKE) --no-print-directory reliability && [ $$bench -eq 0 ]

## make bench-full: the write-ups' shapes and durations (10 s files cells, 30 s hello cells)
## -> RESULTS/<family>.full.md beside the quick reports, then findings.md
bench-full: export SERVELAB_RESULTS = $(RESULTS)
bench-full: bootstrap
	$(RUN) servelab bench --full --label full
	$(RUN) servelab findings --against docs/results

## make reference: what make bench does, written over the committed reference in
## docs/results/ and docs/findings.md (make reference-full: the full forms; the reliability
## suite's committed section: make reliability RESULTS=docs/results)
reference: export SERVELAB_RESULTS =
reference: bootstrap
	$(RUN) servelab bench --quick
	$(RUN) servelab findings

reference-full: export SERVELAB_RESULTS =
reference-full: bootstrap
	$(RUN) servelab bench --full --label full
	$(RUN) servelab findings

## make reliability: every outage drill, the fault probes (dependencies, disk-full: root only, it
## mounts a tmpfs; aborts; coldstart: every family's rated load from the moment it is up),
## fuzzing of every family (schemathesis's phases once a target) and every family's soak
## (1 minute) -> reliability.md in RESULTS (results/<hostname>/; RESULTS=docs/results writes
## over the committed reference). FORM=full: 10-minute
## soaks, the schema fuzzers' phases repeated for 60 s a target. Every phase runs even where
## one before it failed (a drill that could not run costs its row, not the phases after it);
## the target fails at the end if any did.
FORM ?= quick
ifeq ($(FORM),full)
SOAK_FLAGS = --full
FUZZ_FLAGS = --seconds 60
else
SOAK_FLAGS = --quick
FUZZ_FLAGS =
endif
reliability: export SERVELAB_RESULTS = $(RESULTS)
reliability: bootstrap
	@$(RUN) servelab reliability --plan $(FORM)
	@failed=""; \
	$(RUN) servelab outage --all || failed="$$failed outage"; \
	$(RUN) servelab probe || failed="$$failed probe"; \
	$(RUN) servelab fuzz $(FUZZ_FLAGS) || failed="$$failed fuzz"; \
	$(RUN) servelab soak $(SOAK_FLAGS) || failed="$$failed soak"; \
	if [ -n "$$failed" ]; then echo "servelab: reliability phases that failed:$$failed" >&2; exit 1; fi

## make test: lint, then every test against real servers, spread over TEST_WORKERS pytest-xdist
## workers (one per CPU of a 2-CPU machine: four overloaded one, its servers missing their
## healthchecks and timeouts, at load averages up to 68). `--dist loadgroup`:
## the tests sharing a costly fixture wider than one test (a module's stack, the private Docker
## engine of the container lane) run in one worker, so it is made once (servelab.testing.plugin);
## every other test goes to whichever worker is free. The tests share no port, file or database:
## each worker draws its ports from a share of its own (SERVELAB_PORT_SHARE), its databases and
## Redis keys carry its own name. TEST_WORKERS=0: one process. The tests marked `alone` (a verdict
## on latency under load) run afterwards in one process, with nothing beside them; the target
## fails if either run does.
TEST_WORKERS ?= 2
test: bootstrap lint
	$(RUN) pytest -n $(TEST_WORKERS) --dist loadgroup -m "not alone"; spread=$$?; \
	$(RUN) pytest -m alone; alone=$$?; \
	[ $$spread -eq 0 ] && [ $$alone -eq 0 ]

## make test-fast: the inner loop, every test that starts no server, downloads nothing and takes
## under about 2 s (those marked neither `stack`, `network` nor `heavy`: the torch and paddle
## engines, word-vector training, chart drawing, node, compose validation and the OCR tests
## that read many screenshots are left to make test), spread over one pytest-xdist worker per
## CPU as make test spreads them; it needs no database server (the plugin starts private ones
## where none answer)
test-fast: bootstrap
	$(RUN) pytest -m "not stack and not network and not heavy" -n auto --dist loadgroup

## make lint: ruff, and mypy (strict) over the files [tool.mypy] lists in pyproject.toml and
## the gunicorn configs (deploy/gunicorn: files named *.conf.py, so by their paths)
lint: bootstrap
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) mypy
	$(RUN) mypy --explicit-package-bases deploy/gunicorn

## make audit: every version uv.lock pins (pip-audit, PyPI's advisories) and the web app's
## package-lock.json (npm audit) against the known vulnerabilities; fails on a finding that
## audit-ignore.toml does not accept with its reason, and on a package the advisory service did
## not answer for (docs/security.md, Known vulnerabilities). make test runs the same check
## (a `network` test, which make test-fast leaves out).
audit: bootstrap
	$(RUN) servelab audit

## make up PROFILE=gunicorn: run a compose profile as local processes (Ctrl-C stops it)
up: bootstrap
	$(RUN) servelab up --profile $(PROFILE)

## make down: stop every stack `make up` started
down: bootstrap
	$(RUN) servelab down
