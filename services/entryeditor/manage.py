#!/usr/bin/env python
"""Django's manage.py; the same as the `entryeditor-manage` console script."""

from entryeditor_service.manage import main

if __name__ == "__main__":
    main()
