"""The real client address behind a balancer, and an optional IP allow-list.

Behind nginx or HAProxy the TCP peer is the balancer; it names the client in
``X-Forwarded-For``, appending the address it saw to whatever the client sent. Only
the right end of that header is written by machines we trust, so the client is found
by walking it from the right, skipping the configured proxies, and taking the first
address that is not one of them (the rule of werkzeug's ProxyFix and aiohttp-remotes,
counted by trust instead of by hops). The header is believed only when the peer itself
is a trusted proxy: anyone else can write anything in it.

An entry that is not a bare IPv4 or IPv6 address (a port, brackets, ``unknown``, an
empty item) makes the client unknown (``None``): the hop that wrote it cannot be
trusted to have written the rest, so nothing to its left is guessed at. An allow-list
refuses an unknown client.

IPv4-mapped IPv6 addresses (``::ffff:149.154.160.1``, what a dual-stack socket
reports for an IPv4 peer) are read as the IPv4 address they carry. Verdicts are cached
per address string (the balancers and Telegram's senders are few), so the check costs
a dict lookup or two per request; the cache is bounded and simply cleared when full.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from aiohttp.web import BaseRequest

__all__ = [
    "FORWARDED_FOR",
    "NETWORK_PRESETS",
    "TELEGRAM_NETWORKS",
    "AddressPolicy",
    "IPNetwork",
    "Networks",
    "parse_address",
    "parse_network",
    "parse_networks",
]

FORWARDED_FOR = "X-Forwarded-For"

IPNetwork: TypeAlias = "ipaddress.IPv4Network | ipaddress.IPv6Network"
_Address: TypeAlias = "ipaddress.IPv4Address | ipaddress.IPv6Address"

TELEGRAM_NETWORKS: tuple[IPNetwork, ...] = (
    ipaddress.ip_network("149.154.160.0/20"),
    ipaddress.ip_network("91.108.4.0/22"),
)
"""Where Telegram's webhook requests come from (core.telegram.org/bots/webhooks)."""

NETWORK_PRESETS: dict[str, tuple[IPNetwork, ...]] = {"telegram": TELEGRAM_NETWORKS}
"""Names ``parse_networks`` takes for a set of networks (``--allow-ip telegram``)."""

_CACHE_SIZE = 4096


def parse_address(text: str) -> _Address | None:
    """``text`` as an address (IPv4-mapped IPv6 read as IPv4), or None when it is not
    a bare address."""
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def parse_network(value: str | IPNetwork | _Address) -> IPNetwork:
    """An address or a CIDR network (``10.0.0.0/8``, ``::1``) as a network; ValueError
    naming the value otherwise. Host bits set under the prefix are an error
    (``10.0.0.1/8`` is most likely a typo)."""
    if isinstance(value, (ipaddress.IPv4Network, ipaddress.IPv6Network)):
        return value
    if isinstance(value, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        return ipaddress.ip_network(value)
    text = value.strip()
    try:
        network = ipaddress.ip_network(text)
    except ValueError as exc:
        detail = "" if "does not appear" in str(exc) else f" ({exc})"  # e.g. host bits set
        raise ValueError(f"{value!r} is not an IP address or CIDR network{detail}") from None
    if (
        isinstance(network, ipaddress.IPv6Network)
        and network.network_address.ipv4_mapped is not None
        and network.prefixlen >= 96
    ):  # ::ffff:10.0.0.0/104 means 10.0.0.0/8, as addresses are read
        return ipaddress.ip_network(
            f"{network.network_address.ipv4_mapped}/{network.prefixlen - 96}"
        )
    return network


def parse_networks(text: str, *, presets: bool = False) -> tuple[IPNetwork, ...]:
    """Comma-separated addresses and CIDR networks (with ``presets``, also the names of
    ``NETWORK_PRESETS``), as given on a command line or in the environment. ValueError
    naming the bad item, or when there is none at all: an empty allow-list would
    refuse every request, which is never what a blank value meant."""
    networks: list[IPNetwork] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        preset = NETWORK_PRESETS.get(item.lower()) if presets else None
        if preset is not None:
            networks.extend(preset)
            continue
        try:
            networks.append(parse_network(item))
        except ValueError as exc:
            names = f" (or one of: {', '.join(NETWORK_PRESETS)})" if presets else ""
            raise ValueError(f"{exc}{names}") from None
    if not networks:
        raise ValueError(f"no address or network in {text!r}")
    return tuple(networks)


class Networks:
    """A fixed set of networks; ``address in networks`` for an address string.

    ``classify(text)`` gives ``(address, member)``: the address normalized (None when
    ``text`` is not one) and whether it is in the set, cached per string.
    """

    __slots__ = ("_cache", "_v4", "_v6", "networks")

    def __init__(self, networks: Iterable[str | IPNetwork | _Address]) -> None:
        self.networks: tuple[IPNetwork, ...] = tuple(dict.fromkeys(map(parse_network, networks)))
        self._v4 = tuple(n for n in self.networks if n.version == 4)
        self._v6 = tuple(n for n in self.networks if n.version == 6)
        self._cache: dict[str, tuple[str | None, bool]] = {}

    def classify(self, text: str) -> tuple[str | None, bool]:
        verdict = self._cache.get(text)
        if verdict is None:
            verdict = self._classify(text)
            cache = self._cache
            if len(cache) >= _CACHE_SIZE:
                cache.clear()
            cache[text] = verdict
        return verdict

    def _classify(self, text: str) -> tuple[str | None, bool]:
        address = parse_address(text)
        if address is None:
            return None, False
        networks: tuple[IPNetwork, ...] = self._v4 if address.version == 4 else self._v6
        return str(address), any(address in network for network in networks)

    def __contains__(self, address: object) -> bool:
        return isinstance(address, str) and self.classify(address)[1]

    def __bool__(self) -> bool:
        return bool(self.networks)

    def __len__(self) -> int:
        return len(self.networks)

    def __repr__(self) -> str:
        return f"Networks({', '.join(map(str, self.networks))})"


class AddressPolicy:
    """Who the client is (``client_address``) and whether it may post (``allows``).

    ``trusted_proxies``: the balancers whose ``X-Forwarded-For`` is believed.
    ``allowed_ips``: the networks a client must be in; None lets every client in.
    """

    __slots__ = ("allowed_ips", "trusted_proxies")

    def __init__(
        self,
        trusted_proxies: Iterable[str | IPNetwork | _Address] = (),
        allowed_ips: Iterable[str | IPNetwork | _Address] | None = None,
    ) -> None:
        self.trusted_proxies = Networks(trusted_proxies)
        self.allowed_ips = None if allowed_ips is None else Networks(allowed_ips)

    def client_address(self, peer: str | None, forwarded_for: Sequence[str] = ()) -> str | None:
        """The real client of a request from ``peer`` carrying the ``X-Forwarded-For``
        header values ``forwarded_for`` (in order); None when it cannot be told.

        An untrusted peer is the client, whatever the header says; a trusted one
        without the header made the request itself. When every hop is trusted, the
        leftmost is the client.
        """
        if peer is None:
            return None
        address, trusted = self.trusted_proxies.classify(peer)
        if not trusted or not forwarded_for:
            return address
        return self._forwarded_client(forwarded_for)

    def _forwarded_client(self, forwarded_for: Sequence[str]) -> str | None:
        """The first untrusted hop from the right; None at a malformed one."""
        classify = self.trusted_proxies.classify
        hops = (forwarded_for[0] if len(forwarded_for) == 1 else ",".join(forwarded_for)).split(",")
        address: str | None = None
        for hop in reversed(hops):
            address, trusted = classify(hop)
            if address is None or not trusted:
                return address
        return address

    def allows(self, peer: str | None, forwarded_for: Sequence[str] = ()) -> bool:
        """Whether the client of such a request is in ``allowed_ips`` (True without one)."""
        allowed = self.allowed_ips
        if allowed is None:
            return True
        client = self.client_address(peer, forwarded_for)
        return client is not None and allowed.classify(client)[1]

    def allows_request(self, request: BaseRequest) -> bool:
        """``allows`` for an aiohttp request: its peer and its ``X-Forwarded-For``
        (read only when the peer is trusted)."""
        allowed = self.allowed_ips
        if allowed is None:
            return True
        peer = request.remote
        if peer is None:
            return False
        client, trusted = self.trusted_proxies.classify(peer)
        if trusted:
            forwarded_for = request.headers.getall(FORWARDED_FOR, ())
            if forwarded_for:
                client = self._forwarded_client(forwarded_for)
        return client is not None and allowed.classify(client)[1]

    def client_of(self, request: BaseRequest) -> str | None:
        """``client_address`` for an aiohttp request."""
        return self.client_address(request.remote, request.headers.getall(FORWARDED_FOR, ()))

    def __repr__(self) -> str:
        return f"AddressPolicy(trusted_proxies={self.trusted_proxies!r}, allowed_ips={self.allowed_ips!r})"
