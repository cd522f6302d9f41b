"""`servelab audit`: exit 0 when every locked package was checked and every finding is accepted
in audit-ignore.toml, 1 on an unexplained finding, 2 when a lock could not be checked."""

from __future__ import annotations

import argparse
import sys

from servelab.audit.ignores import IgnoreError
from servelab.audit.python import Advisories
from servelab.audit.run import audit, report
from servelab.project import Project, ProjectError

HELP = (
    "check uv.lock (pip-audit) and the web app's package-lock.json (npm audit) for known "
    "vulnerabilities; fail on any not accepted in audit-ignore.toml"
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    audit = commands.add_parser("audit", help=HELP)
    audit.add_argument(
        "--service",
        choices=("pypi", "osv"),
        default="pypi",
        help="where pip-audit asks: PyPI's JSON API (default) or the OSV API",
    )
    audit.add_argument("--osv-url", help="with --service osv: an OSV API other than api.osv.dev's")
    audit.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        verdict = audit(Project.find(), Advisories(args.service, args.osv_url))
    except (ProjectError, IgnoreError) as error:
        print(f"servelab audit: {error}", file=sys.stderr)
        return 2
    for line in report(verdict):
        print(f"servelab audit: {line}", flush=True)
    if verdict.unexplained:
        return 1
    return 0 if verdict.complete else 2
