"""The client's real address behind a balancer, and the IP allow-list: the rules on
their own (with generated chains of proxies) and over real sockets."""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import re
import signal
from pathlib import Path

import aiohttp
import pytest
from hypothesis import given
from hypothesis import strategies as st
from multidict import CIMultiDict
from server_support import (
    message,
    post,
    served,
    subprocess_env,
    tgfast_command,
)
from test_server_metrics import parse

from tgfast import Bot, Dispatcher
from tgfast.cli import main
from tgfast.server import Rejected
from tgfast.server.addresses import (
    _CACHE_SIZE,
    FORWARDED_FOR,
    TELEGRAM_NETWORKS,
    AddressPolicy,
    Networks,
    parse_address,
    parse_network,
    parse_networks,
)
from tgfast.types import Message

TELEGRAM = "149.154.167.99"
PROXIES = ["10.0.0.0/8", "fd00::/8", "192.168.1.1"]

# -- the rules --------------------------------------------------------------------------


def test_addresses_are_read_strictly_and_ipv4_mapped_as_ipv4() -> None:
    assert str(parse_address(" 10.1.2.3 ")) == "10.1.2.3"
    assert str(parse_address("::ffff:149.154.160.1")) == "149.154.160.1"
    assert str(parse_address("2001:DB8::1")) == "2001:db8::1"
    for bad in ("", "unknown", "10.1.2.3:80", "[2001:db8::1]", "[::1]:443", "010.1.2.3",
                "1.2.3", "10.0.0.0/8", "_hidden", "1.2.3.4.5", "٣.٣.٣.٣"):  # fmt: skip
        assert parse_address(bad) is None, bad


def test_networks_are_addresses_or_cidr() -> None:
    assert parse_network("10.0.0.1") == ipaddress.ip_network("10.0.0.1/32")
    assert parse_network(" fd00::/8 ") == ipaddress.ip_network("fd00::/8")
    assert parse_network("::ffff:10.0.0.0/104") == ipaddress.ip_network("10.0.0.0/8")
    with pytest.raises(ValueError, match="host bits set"):
        parse_network("10.0.0.1/8")
    with pytest.raises(ValueError, match="'nope' is not an IP address or CIDR network"):
        parse_network("nope")
    assert parse_networks("telegram, ::1", presets=True) == (
        *TELEGRAM_NETWORKS, ipaddress.ip_network("::1/128"),
    )  # fmt: skip
    assert [str(n) for n in TELEGRAM_NETWORKS] == ["149.154.160.0/20", "91.108.4.0/22"]
    with pytest.raises(ValueError, match="'telegram' is not"):
        parse_networks("telegram")  # only the allow-list knows the preset
    with pytest.raises(ValueError, match="no address or network"):
        parse_networks(" , ")  # an empty allow-list would refuse everything


def test_an_untrusted_peer_is_the_client_whatever_it_forwards() -> None:
    policy = AddressPolicy(PROXIES)
    assert policy.client_address("203.0.113.5", [TELEGRAM]) == "203.0.113.5"
    assert policy.client_address("::ffff:203.0.113.5", ["10.0.0.1"]) == "203.0.113.5"
    assert AddressPolicy().client_address("10.0.0.1", [TELEGRAM]) == "10.0.0.1"  # none trusted


def test_a_chain_of_trusted_proxies_resolves_to_the_first_untrusted_hop() -> None:
    policy = AddressPolicy(PROXIES)
    # the client wrote "1.1.1.1, 149.154.167.99" itself; the balancers appended the rest
    forwarded = [f"1.1.1.1, {TELEGRAM}, 203.0.113.7 , 10.0.0.9,fd00::5"]
    assert policy.client_address("10.0.0.1", forwarded) == "203.0.113.7"
    assert policy.client_address("10.0.0.1", [TELEGRAM]) == TELEGRAM
    assert policy.client_address("10.0.0.1", []) == "10.0.0.1"  # the proxy's own request
    assert policy.client_address("10.0.0.1", ["192.168.1.1, 10.0.0.2"]) == "192.168.1.1"
    # several headers are one list, in order
    assert policy.client_address("10.0.0.1", [TELEGRAM, "203.0.113.7"]) == "203.0.113.7"
    assert policy.client_address("10.0.0.1", ["203.0.113.7", TELEGRAM]) == TELEGRAM
    assert policy.client_address("10.0.0.1", ["203.0.113.7", "10.0.0.3"]) == "203.0.113.7"


def test_a_malformed_hop_makes_the_client_unknown_never_a_guess() -> None:
    policy = AddressPolicy(PROXIES, allowed_ips=TELEGRAM_NETWORKS)
    for forwarded in (
        [f"{TELEGRAM}, unknown"], [f"{TELEGRAM}, 10.0.0.5:8080"], [f"{TELEGRAM},"], [""],
        [f"{TELEGRAM}, , 10.0.0.5"], [TELEGRAM, ""], ["[2001:db8::1]"], ["x" * 5000],
    ):  # fmt: skip
        assert policy.client_address("10.0.0.1", forwarded) is None, forwarded
        assert not policy.allows("10.0.0.1", forwarded)
    # what the client wrote left of the first untrusted hop is never read
    assert policy.client_address("10.0.0.1", [f"garbage, {TELEGRAM}"]) == TELEGRAM
    assert policy.client_address(None) is None
    assert policy.client_address("") is None  # a peer that is no IP (a Unix socket)
    assert not policy.allows("")


def test_the_allow_list_takes_the_real_client_and_nothing_implicitly() -> None:
    policy = AddressPolicy(["127.0.0.1"], allowed_ips=TELEGRAM_NETWORKS)
    assert policy.allows("127.0.0.1", [TELEGRAM])
    assert policy.allows(TELEGRAM)  # Telegram straight to the worker
    assert not policy.allows("127.0.0.1")  # loopback is not implicitly allowed
    assert not policy.allows("127.0.0.1", ["91.108.8.1"])
    assert policy.allows("127.0.0.1", ["91.108.7.255"])
    assert not policy.allows("10.0.0.1", [TELEGRAM])  # a spoofed header from outside
    assert AddressPolicy(allowed_ips=None).allows("203.0.113.1")
    assert not AddressPolicy(allowed_ips=[]).allows(TELEGRAM)


def test_verdicts_are_cached_within_a_bound() -> None:
    networks = Networks(["10.0.0.0/8", "10.0.0.0/8", "::1"])
    assert len(networks) == 2 and "10.2.3.4" in networks and "::1" in networks
    assert 10 not in networks and "::2" not in networks
    for n in range(_CACHE_SIZE + 10):
        assert f"11.0.{n // 256}.{n % 256}" not in networks
    assert 0 < len(networks._cache) <= _CACHE_SIZE
    assert networks.classify("10.0.0.1") == ("10.0.0.1", True)
    assert networks.classify("nope") == (None, False)


# -- the rules, on generated input ---------------------------------------------------------

_TRUSTED = Networks(PROXIES)
_trusted_v4 = st.integers(0, 2**24 - 1).map(lambda n: str(ipaddress.IPv4Address(0x0A000000 + n)))
_trusted_v6 = st.integers(0, 2**120 - 1).map(
    lambda n: str(ipaddress.IPv6Address((0xFD << 120) + n))
)
trusted = st.one_of(_trusted_v4, _trusted_v6, st.just("192.168.1.1"))
untrusted = (
    st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6))
    .map(str)
    .filter(lambda a: a not in _TRUSTED and parse_address(a) is not None)
)
junk = st.one_of(st.text(max_size=20), trusted, untrusted)


def as_headers(hops: list[str], cuts: list[int]) -> list[str]:
    """``hops`` written as one or several X-Forwarded-For headers, split at ``cuts``."""
    bounds = sorted({0, len(hops), *(c % (len(hops) + 1) for c in cuts)})
    return [", ".join(hops[a:b]) for a, b in itertools.pairwise(bounds) if a < b]


@given(peer=untrusted, forwarded=st.lists(st.text(max_size=40), max_size=4))
def test_generated_an_untrusted_peers_header_is_never_believed(
    peer: str, forwarded: list[str]
) -> None:
    policy = AddressPolicy(PROXIES)
    assert policy.client_address(peer, forwarded) == str(parse_address(peer))


@given(
    client=untrusted,
    proxies=st.lists(trusted, min_size=1, max_size=6),
    prefix=st.lists(junk.filter(lambda t: "," not in t), max_size=4),
    cuts=st.lists(st.integers(0, 20), max_size=3),
)
def test_generated_a_trusted_chain_resolves_to_the_first_untrusted_hop(
    client: str, proxies: list[str], prefix: list[str], cuts: list[int]
) -> None:
    """Whatever the client wrote (``prefix``), the proxies' part decides."""
    policy = AddressPolicy(PROXIES, allowed_ips=[client])
    *hops, peer = proxies
    forwarded = as_headers([*prefix, client, *hops], cuts)
    assert policy.client_address(peer, forwarded) == str(parse_address(client))
    assert policy.allows(peer, forwarded)
    assert policy.client_address(peer, forwarded) == str(parse_address(client))  # cached


@given(
    client=untrusted,
    proxies=st.lists(trusted, min_size=1, max_size=4),
    bad=st.text(max_size=20).filter(lambda t: "," not in t and parse_address(t) is None),
    where=st.integers(0, 10),
)
def test_generated_a_malformed_trusted_side_is_unknown(
    client: str, proxies: list[str], bad: str, where: int
) -> None:
    policy = AddressPolicy(PROXIES, allowed_ips=[client])
    *hops, peer = proxies
    hops.insert(where % (len(hops) + 1), bad)
    forwarded = [", ".join([client, *hops])]
    assert policy.client_address(peer, forwarded) is None
    assert not policy.allows(peer, forwarded)


# -- over real sockets ---------------------------------------------------------------------


def recorder() -> tuple[Dispatcher, list[str]]:
    dp = Dispatcher()
    handled: list[str] = []

    @dp.message()
    async def record(message: Message) -> None:
        handled.append(message.text or "")

    return dp, handled


async def scrape(http: aiohttp.ClientSession, base: str) -> dict[str, float]:
    async with http.get(f"{base}/metrics") as r:
        assert r.status == 200
        return parse(await r.text())


def base_of(url: str | None) -> str:
    assert url is not None
    return url.removesuffix("/webhook")


async def test_a_client_outside_the_allow_list_gets_403_counted_in_metrics(
    bot: Bot, http: aiohttp.ClientSession
) -> None:
    dp, handled = recorder()
    async with served(dp, bot, allowed_ips=TELEGRAM_NETWORKS) as server:
        assert server.url is not None
        base = base_of(server.url)
        # 127.0.0.1 is not Telegram, and no proxy is trusted: its header is ignored
        for n, headers in enumerate(({}, {FORWARDED_FOR: TELEGRAM})):
            status, _, _ = await post(http, server.url, message(n, 5, "x"), headers=headers)
            assert status == 403
        async with http.get(server.url) as r:
            assert r.status == 403  # the address is checked before anything else
        for path in (
            "/healthz",
            "/readyz",
            "/metrics",
        ):  # the balancer's, not restricted
            async with http.get(f"{base}{path}") as r:
                assert r.status == 200, path
        samples = await scrape(http, base)
        await server.drain()
    assert handled == []
    assert samples[f'tgfast_rejected_total{{reason="{Rejected.FORBIDDEN_IP}"}}'] == 3
    assert 'tgfast_rejected_total{reason="method"}' not in samples


async def test_a_trusted_proxys_forwarded_client_is_allowed(
    bot: Bot, http: aiohttp.ClientSession
) -> None:
    dp, handled = recorder()
    proxies = ["127.0.0.1", "10.0.0.0/8"]
    async with served(dp, bot, trusted_proxies=proxies, allowed_ips=TELEGRAM_NETWORKS) as server:
        assert server.url is not None
        cases = [
            ("direct from the proxy", None, 403),
            ("via two proxies", f"1.2.3.4, {TELEGRAM}, 10.0.0.7", 200),
            ("client not Telegram", f"{TELEGRAM}, 203.0.113.9", 403),
            ("a malformed hop", f"{TELEGRAM}, unknown", 403),
            ("ipv4-mapped", "::ffff:91.108.4.1", 200),
        ]
        for n, (text, forwarded, expected) in enumerate(cases):
            headers = {FORWARDED_FOR: forwarded} if forwarded else {}
            status, _, _ = await post(http, server.url, message(n, 5, text), headers=headers)
            assert status == expected, text
        # two headers are one list, in order (neither the first nor the last alone)
        for n, order, expected in (
            (10, ("203.0.113.9", TELEGRAM), 200),
            (11, (TELEGRAM, "10.0.0.8"), 200),
            (12, (TELEGRAM, "203.0.113.9"), 403),
        ):
            sent = CIMultiDict([(FORWARDED_FOR, hop) for hop in order])
            async with http.post(server.url, json=message(n, 5, f"two {n}"), headers=sent) as r:
                assert r.status == expected, order
        samples = await scrape(http, base_of(server.url))
        await server.drain()
    assert handled == ["via two proxies", "ipv4-mapped", "two 10", "two 11"]
    assert samples['tgfast_rejected_total{reason="forbidden_ip"}'] == 4


async def test_the_address_goes_before_the_secret(bot: Bot, http: aiohttp.ClientSession) -> None:
    dp, handled = recorder()
    secret = "the-secret"
    async with served(
        dp,
        bot,
        secret_token=secret,
        trusted_proxies=["127.0.0.1"],
        allowed_ips=[TELEGRAM],
    ) as server:
        assert server.url is not None
        spoofed = {FORWARDED_FOR: "203.0.113.9"}
        assert (await post(http, server.url, message(1, 5, "a"), secret=secret, headers=spoofed))[
            0
        ] == 403
        real = {FORWARDED_FOR: TELEGRAM}
        assert (await post(http, server.url, message(2, 5, "b"), secret="wrong", headers=real))[
            0
        ] == 403
        assert (await post(http, server.url, message(3, 5, "c"), secret=secret, headers=real))[
            0
        ] == 200
        await server.drain()
        assert server.metrics.rejected == {Rejected.FORBIDDEN_IP: 1, Rejected.SECRET: 1}
        assert server.addresses.client_address("127.0.0.1", [TELEGRAM]) == TELEGRAM
    assert handled == ["c"]


async def test_without_options_nothing_is_checked(bot: Bot, http: aiohttp.ClientSession) -> None:
    dp, handled = recorder()
    async with served(dp, bot, trusted_proxies=["127.0.0.1"]) as server:
        assert server._allows is None  # no allow-list: no per-request work at all
        assert server.url is not None
        status, _, _ = await post(
            http, server.url, message(1, 5, "x"), headers={FORWARDED_FOR: "junk"}
        )
        assert status == 200
        await server.drain()
    assert handled == ["x"]


# -- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "env", "error"),
    [
        (["--trusted-proxy", "nope"], "", "argument --trusted-proxy: 'nope' is not an IP"),
        (["--allow-ip", "10.0.0.1/8"], "", "host bits set"),
        (["--allow-ip", ""], "", "argument --allow-ip: no address or network"),
        (["--allow-ip", "telegraph"], "", "(or one of: telegram)"),
        ([], "10.0.0.1, bad", "$TGFAST_TRUSTED_PROXIES: 'bad' is not an IP"),
    ],
)  # fmt: skip
def test_bad_values_are_usage_errors(
    args: list[str], env: str, error: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    (tmp_path / "app.py").write_text("from tgfast import Dispatcher\ndp = Dispatcher()\n")
    monkeypatch.setenv("TGFAST_TRUSTED_PROXIES", env)
    with pytest.raises(SystemExit) as exit:
        main(["webhook", f"{tmp_path / 'app.py'}:dp", "--fake", *args])
    assert exit.value.code == 2
    assert error in capsys.readouterr().err


_FAKE_FEED = re.compile(r"feed it: .* (http://\S+)/fake/updates")


async def test_the_command_line_wires_both_options(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("from tgfast import Dispatcher\ndp = Dispatcher()\n")
    proc = await asyncio.create_subprocess_exec(
        *tgfast_command("webhook", "app.py:dp", "--fake", "--port", "0", "--no-uvloop",
                        "--trusted-proxy", "10.9.9.9", "--allow-ip", "telegram"),
        cwd=tmp_path, env=subprocess_env(TGFAST_TRUSTED_PROXIES="bad, ignored: the flag wins"),
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    log: list[str] = []
    try:
        while not (match := _FAKE_FEED.search(log[-1] if log else "")):
            line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
            assert line, "".join(log)
            log.append(line)
        base = match.group(1)
        async with aiohttp.ClientSession() as http:
            # the fake delivers from 127.0.0.1: not a trusted proxy, not Telegram
            async with http.post(f"{base}/fake/updates", json={"text": "hi", "chat_id": 5}) as r:
                [delivered] = await r.json()
            assert delivered["status"] == 403
            samples = await scrape(http, base)
        assert samples['tgfast_rejected_total{reason="forbidden_ip"}'] == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
        log.append((await proc.stderr.read()).decode())
    assert code == 0, "".join(log)
    assert any("refused a request from 127.0.0.1" in line for line in log)
