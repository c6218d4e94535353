"""``Sentinels``: where the master of a Redis Sentinel deployment is now, for ``RespClient``.

A ``RespClient`` made with ``sentinels=`` asks them for the master's address
(``SENTINEL get-master-addr-by-name``) each time it connects, and checks with ``ROLE``
that the server it reached is the master (a sentinel may not have seen the failover
yet). A lost connection, or a ``READONLY``/``MASTERDOWN`` reply (the server was
demoted), ends the connection; the next command connects again and so follows the
failover. The sentinels are asked in order; the one that answered goes first next time.

The URL form is ``redis+sentinel://`` (``rediss+sentinel://`` for TLS to the servers
and the sentinels), the form of the ``Redis-Sentinel-Url`` package that Prefect and
docket use too::

    redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/service_name[/db]
        [?db=N&sentinel_username=U&sentinel_password=P&master_wait=SECONDS]

The credentials before ``@`` are the Redis servers'; the sentinels' own (their
``requirepass``) are the ``sentinel_*`` options. A sentinel's port defaults to 26379.
``master_wait`` (tgfast's own option; 5 s by default) is how long a command waits for
a master before failing: a failover takes the sentinels' ``down-after-milliseconds``
plus an election and a promotion, a few seconds more.
"""

from __future__ import annotations

import ssl as _ssl
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, unquote

from .errors import RedisUnavailable

__all__ = ["DEFAULT_SENTINEL_PORT", "SENTINEL_SCHEMES", "Sentinels", "parse_sentinel_url"]

DEFAULT_SENTINEL_PORT = 26379
SENTINEL_SCHEMES = ("redis+sentinel", "rediss+sentinel")


class Sentinels:
    """The sentinels watching ``service_name``, asked for its master's address.

    ``username``/``password`` are the sentinels' own credentials (not the servers');
    ``ssl`` is the TLS context to reach them with; ``timeout`` bounds one sentinel's
    connect and reply, after which the next one is asked.
    """

    __slots__ = ("_clients", "addresses", "password", "service_name", "ssl", "timeout",
                 "username")  # fmt: skip

    def __init__(
        self,
        addresses: Sequence[tuple[str, int]],
        service_name: str,
        *,
        username: str | None = None,
        password: str | None = None,
        ssl: _ssl.SSLContext | None = None,
        timeout: float = 1.0,
    ) -> None:
        if not addresses:
            raise ValueError("Redis Sentinel needs at least one sentinel address")
        if not service_name:
            raise ValueError("Redis Sentinel needs the service (master group) name")
        self.addresses = [(str(host), int(port)) for host, port in addresses]
        self.service_name = service_name
        self.username = username
        self.password = password
        self.ssl = ssl
        self.timeout = timeout
        self._clients: dict[tuple[str, int], Any] = {}

    def __repr__(self) -> str:
        where = ",".join(f"{host}:{port}" for host, port in self.addresses)
        return f"Sentinels({self.service_name!r} at {where})"

    async def master(self, avoid: tuple[str, int] | None = None) -> tuple[str, int]:
        """The master's (host, port) as the first sentinel that knows it says; else
        ``RedisUnavailable`` naming what each one answered.

        ``avoid`` is an address that just failed: a sentinel naming it may not have
        seen the failover yet, so the next ones are asked; it is the answer only when
        all of them name it.
        """
        from .resp_client import RespClient

        problems: list[str] = []
        stale: tuple[str, int] | None = None
        for index, address in enumerate(self.addresses):
            client = self._clients.get(address)
            if client is None:
                client = self._clients[address] = RespClient(
                    host=address[0], port=address[1], username=self.username,
                    password=self.password, ssl=self.ssl, timeout=self.timeout,
                )  # fmt: skip
            try:
                reply = await client.execute(
                    "SENTINEL", "get-master-addr-by-name", self.service_name
                )
            except RedisUnavailable as exc:
                problems.append(f"{address[0]}:{address[1]}: {exc}")
                continue
            if not (isinstance(reply, list) and len(reply) == 2):
                problems.append(f"{address[0]}:{address[1]}: no master named "
                                f"{self.service_name!r}")  # fmt: skip
                continue
            master = reply[0].decode(), int(reply[1])
            if master == avoid:
                stale = master
                continue
            if index:  # ask the one that answered first next time
                self.addresses.insert(0, self.addresses.pop(index))
            return master
        if stale is not None:
            return stale
        raise RedisUnavailable(
            f"no sentinel gave the master of {self.service_name!r}: " + "; ".join(problems)
        )

    async def close(self) -> None:
        """Close the connections to the sentinels (the next ``master()`` opens them)."""
        clients, self._clients = self._clients, {}
        for client in clients.values():
            await client.close()


def parse_sentinel_url(url: str) -> dict[str, Any]:
    """The parts of a ``redis+sentinel://`` URL (see the module docstring): ``addresses``,
    ``service_name``, ``db``, ``username``, ``password``, ``sentinel_username``,
    ``sentinel_password``, ``master_wait`` (None when not given) and ``tls``;
    ``ValueError`` naming what is wrong."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in SENTINEL_SCHEMES:
        raise ValueError(f"bad redis URL: scheme {scheme!r}, expected redis+sentinel://")
    if "#" in rest:
        raise ValueError("bad redis URL: a sentinel URL takes no #fragment")
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    userinfo, at, hosts = netloc.rpartition("@")
    username = password = None
    if at:
        user, colon, secret = userinfo.partition(":")
        username = unquote(user) if user else None
        password = unquote(secret) if colon else None  # as redis://: user@ is a username
    addresses = [_address(part) for part in hosts.split(",")]
    names = [unquote(part) for part in path.split("/")] if path else []
    if not names or not names[0]:
        raise ValueError(
            "bad redis URL: no service name (redis+sentinel://host:26379/mymaster[/db])"
        )
    if len(names) > 2:
        raise ValueError(f"bad redis URL: path {path!r}, expected /service_name[/db]")
    options = dict(parse_qsl(query, keep_blank_values=True))
    db_text = options.pop("db", None)
    if len(names) == 2 and db_text is not None and names[1] != db_text:
        raise ValueError(f"bad redis URL: db {names[1]!r} in the path, {db_text!r} in the query")
    db_text = names[1] if len(names) == 2 else db_text
    sentinel_username = options.pop("sentinel_username", None) or None
    sentinel_password = options.pop("sentinel_password", None)
    wait_text = options.pop("master_wait", None)
    if options:
        raise ValueError(
            f"bad redis URL: unsupported option(s) {', '.join(sorted(options))} "
            "(a sentinel URL takes db, sentinel_username, sentinel_password, master_wait)"
        )
    master_wait = None
    if wait_text is not None:
        try:
            master_wait = float(wait_text)
        except ValueError:
            master_wait = -1.0
        if not 0 <= master_wait < float("inf"):
            raise ValueError(f"bad redis URL: master_wait must be seconds, got {wait_text!r}")
    if db_text is not None and not (db_text.isascii() and db_text.isdigit()):
        raise ValueError(f"bad redis URL: db must be a number, got {db_text!r}")
    return {
        "addresses": addresses,
        "service_name": names[0],
        "db": int(db_text or 0),
        "username": username,
        "password": password,
        "sentinel_username": sentinel_username,
        "sentinel_password": sentinel_password,
        "master_wait": master_wait,
        "tls": scheme.lower() == "rediss+sentinel",
    }


def _address(text: str) -> tuple[str, int]:
    """``host[:port]`` or ``[v6]:port`` of one sentinel."""
    if text.startswith("["):
        host, bracket, port_text = text[1:].partition("]")
        if not bracket or (port_text and not port_text.startswith(":")):
            raise ValueError(f"bad redis URL: sentinel address {text!r}")
        port_text = port_text[1:]
    else:
        host, _, port_text = text.partition(":")
    if not host:
        raise ValueError(f"bad redis URL: a sentinel without a host in {text!r}")
    if not port_text:
        return host, DEFAULT_SENTINEL_PORT
    if not (port_text.isascii() and port_text.isdigit() and 0 < int(port_text) < 65536):
        raise ValueError(f"bad redis URL: sentinel port {port_text!r}")
    return host, int(port_text)
