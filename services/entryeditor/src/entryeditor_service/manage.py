"""`entryeditor-manage`: Django's manage.py for this service, as a console script."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "entryeditor_service.config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(argv if argv is not None else sys.argv)


if __name__ == "__main__":
    main()
