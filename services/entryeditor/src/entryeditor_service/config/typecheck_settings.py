"""The settings django-stubs' mypy plugin imports to type the models and settings
(pyproject's [tool.django-stubs]): production's, given the one value production must set,
so `mypy` runs with no environment. Never a server's DJANGO_SETTINGS_MODULE."""

import os

os.environ.setdefault("SECRET_KEY", "type-checking-only")

# Django's idiom for a settings variant: every name of the base module.
from entryeditor_service.config.settings import *  # noqa: F403
