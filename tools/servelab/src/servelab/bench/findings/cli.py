"""`servelab findings`: docs/findings.md from the committed runs, or a results folder's own
findings page compared with the reference."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from servelab.bench.errors import BenchError
from servelab.bench.findings.page import compare_findings, write_findings
from servelab.project import Project
from servelab.spec.family import SpecError


def findings(args: argparse.Namespace) -> int:
    project = Project.find()
    results = args.results or project.results
    if not results.is_dir():
        print(f"servelab: no results folder at {results}", file=sys.stderr)
        return 2
    try:
        print(f"servelab: wrote {write_findings(project, results)}", file=sys.stderr)
        if args.against is not None:
            found = compare_findings(project, results, args.against)
            print(found.summary(f"This run ({results}) and {args.against}"))
            for asked, ours, theirs, opposed in found.differ:
                how = "opposite" if opposed else "differs"
                print(f"  {how}: {asked}: {ours} / {theirs}")
    except (BenchError, SpecError) as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    page = commands.add_parser(
        "findings",
        help="answer every write-up question from saved runs, with how sure each answer is",
    )
    page.add_argument(
        "--results",
        type=Path,
        metavar="DIR",
        help="the saved runs to read (default: docs/results, writing docs/findings.md; "
        "another folder gets its own findings.md)",
    )
    page.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="then compare each answer with those from the runs in DIR (e.g. docs/results)",
    )
    page.set_defaults(handler=findings)
