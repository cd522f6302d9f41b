"""Which server a stack uses: the user's, the machine's at the default address, or private."""

from __future__ import annotations

from collections.abc import Callable

from servelab.stack.attached import Address
from servelab.stack.servers.settings import ServerChoice, Setting, choose

DEFAULT = Address("127.0.0.1", 3306)
USERS = Address("127.0.0.1", 3307)


def answers(*addresses: Address) -> Callable[[Address], bool]:
    return lambda where: where in addresses


def test_a_configured_server_is_used_whether_or_not_the_default_answers() -> None:
    for reachable in (answers(DEFAULT), answers()):
        assert choose(Setting(address=USERS), DEFAULT, reachable) == ServerChoice(USERS, True)


def test_the_default_address_is_used_where_it_answers() -> None:
    assert choose(Setting(), DEFAULT, answers(DEFAULT)) == ServerChoice(DEFAULT)


def test_an_unreachable_default_means_a_private_server() -> None:
    assert choose(Setting(), DEFAULT, answers(USERS)).address is None


def test_private_is_private_even_where_the_default_answers() -> None:
    assert choose(Setting(private=True), DEFAULT, answers(DEFAULT)).address is None
