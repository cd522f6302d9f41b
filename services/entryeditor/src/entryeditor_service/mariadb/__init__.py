"""Django's MySQL backend for MariaDB, with a health check that gives up on a silent server
(ENGINE "entryeditor_service.mariadb"; base.py)."""
