"""The local runner renders nginx templates as the image does, with one line per replica
where a template names a replicated service's address."""

from __future__ import annotations

import pytest

from servelab.stack.compose import ComposeError
from servelab.stack.nginx import envsubst

TEMPLATE = """\
upstream app {
    server ${UPSTREAM} max_fails=2;
    keepalive 8;
}
listen ${NGINX_PORT}; # $host stays nginx's
"""


def test_defined_variables_are_substituted_and_nginx_variables_left_alone() -> None:
    rendered = envsubst(TEMPLATE, {"UPSTREAM": "127.0.0.1:9001", "NGINX_PORT": "8080"})
    assert "    server 127.0.0.1:9001 max_fails=2;\n" in rendered
    assert "listen 8080; # $host stays nginx's\n" in rendered


def test_a_line_naming_a_list_variable_is_written_once_per_item() -> None:
    addresses = ["127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"]
    rendered = envsubst(TEMPLATE, {"NGINX_PORT": "8080"}, {"UPSTREAM": addresses})
    assert rendered.splitlines()[:5] == [
        "upstream app {",
        "    server 127.0.0.1:9001 max_fails=2;",
        "    server 127.0.0.1:9002 max_fails=2;",
        "    server 127.0.0.1:9003 max_fails=2;",
        "    keepalive 8;",
    ]


def test_a_line_naming_two_list_variables_is_an_error() -> None:
    lists = {"A": ["1", "2"], "B": ["3", "4"]}
    with pytest.raises(ComposeError, match="several list variables"):
        envsubst("server ${A} ${B};\n", {}, lists)
