"""`servelab up` and `servelab down`: a profile's services as local processes, and every
stack that `up` started stopped."""

from __future__ import annotations

import argparse
import sys
import threading

from servelab.project import Project
from servelab.stack import Stack, StackError, sessions


def up(args: argparse.Namespace) -> int:
    project = Project.find()
    stack = Stack(args.profile, only=args.only, publish=not args.any_port, project=project)
    record = None
    try:
        with stack:
            record = sessions.record(
                project, stack.profiles, {n: r.pgid for n, r in stack.running.items()}
            )
            for name, lease in stack.leases.items():
                print(f"servelab: {name} is {lease.describe()}", file=sys.stderr)
            for name, running in stack.running.items():
                if running.process.poll() == 0:
                    print(f"servelab: {name} ran to completion", file=sys.stderr)
                    continue
                where = f"  {stack.url(name)}" if name in stack.ports else ""
                print(f"servelab: {name} is up{where}", file=sys.stderr)
            print(
                f"servelab: writes need 'Authorization: Bearer {stack.api_token}'", file=sys.stderr
            )
            print("servelab: Ctrl-C (or `servelab down`) stops everything", file=sys.stderr)
            threading.Event().wait()
    except KeyboardInterrupt:
        print("servelab: stopping", file=sys.stderr)
    except StackError as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 1
    finally:
        if record is not None:
            record.unlink(missing_ok=True)
    return 0


def down(args: argparse.Namespace) -> int:
    stopped = sessions.stop_all(Project.find())
    for session in stopped:
        print(f"servelab: stopped {'/'.join(session.profiles)} (runner pid {session.pid})")
    if not stopped:
        print("servelab: nothing running")
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser("up", help="start a profile's services as local processes")
    run.add_argument("--profile", "-p", action="append", required=True, help="compose profile")
    run.add_argument("--only", action="append", metavar="SERVICE", help="start only this service")
    run.add_argument(
        "--any-port", action="store_true", help="listen on free ports instead of the published ones"
    )
    run.set_defaults(handler=up)

    stop = commands.add_parser("down", help="stop every stack `servelab up` started")
    stop.set_defaults(handler=down)
