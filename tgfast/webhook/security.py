"""aiogram's ``IPFilter``: which client addresses may post updates.

The networks are kept as networks (aiogram expands each into its addresses), and IPv6
is accepted as well. An address that cannot be parsed is not in the filter.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from ..server.addresses import TELEGRAM_NETWORKS, IPNetwork, Networks, parse_network

__all__ = ["DEFAULT_TELEGRAM_NETWORKS", "IPFilter"]

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_TELEGRAM_NETWORKS: list[IPNetwork] = list(TELEGRAM_NETWORKS)
"""Where Telegram's webhook requests come from (core.telegram.org/bots/webhooks)."""


class IPFilter:
    """A set of addresses and networks; ``ip in ip_filter`` or ``check(ip)``."""

    def __init__(self, ips: Sequence[str | IPNetwork | _Address] | None = None) -> None:
        self._networks: list[IPNetwork] = []
        self._lookup = Networks(())
        if ips:
            self.allow(*ips)

    def allow(self, *ips: str | IPNetwork | _Address) -> None:
        """Let these addresses or CIDR networks in."""
        for ip in ips:
            self.allow_ip(ip)

    def allow_ip(self, ip: str | IPNetwork | _Address) -> None:
        """Let one address or CIDR network in; ``ValueError`` for anything else."""
        if not isinstance(ip, (str, ipaddress.IPv4Network, ipaddress.IPv6Network, *_ADDRESSES)):
            raise ValueError(f"not an IP address or network: {type(ip).__name__} ({ip!r})")
        self._networks.append(parse_network(ip))
        self._lookup = Networks(self._networks)

    @classmethod
    def default(cls) -> IPFilter:
        """Telegram's webhook networks."""
        return cls(DEFAULT_TELEGRAM_NETWORKS)

    @property
    def networks(self) -> tuple[IPNetwork, ...]:
        return self._lookup.networks

    @property
    def _allowed_ips(self) -> set[_Address]:
        """Every allowed address, listed as aiogram keeps them (a network's hosts), for
        code written against aiogram's attribute; a network too large to list (more
        than 2**16 addresses: IPv6) is a ``ValueError``, not a hang."""
        listed: set[_Address] = set()
        for network in self._networks:
            if network.num_addresses > _LISTABLE:
                raise ValueError(f"{network} holds too many addresses to list")
            listed.update(network.hosts() if network.num_addresses > 1 else (network[0],))
        return listed

    def check(self, ip: str | _Address) -> bool:
        """Whether ``ip`` is one of the allowed addresses."""
        return self._lookup.classify(str(ip))[1]

    def __contains__(self, item: object) -> bool:
        return isinstance(item, (str, *_ADDRESSES)) and self.check(item)

    def __repr__(self) -> str:
        return f"IPFilter({', '.join(map(str, self.networks))})"


_ADDRESSES = (ipaddress.IPv4Address, ipaddress.IPv6Address)
_LISTABLE = 1 << 16
