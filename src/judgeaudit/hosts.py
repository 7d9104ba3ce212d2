"""What a host in a base URL means for where a request goes: this machine only, or a network
of one's own. One owner for the profiles' "no warning for plain http here" and the llm layer's
fast path, so an IPv4-mapped address (``::ffff:127.0.0.1``, which Python 3.11 does not call
loopback) or a trailing dot (``localhost.``) means the same to both."""

from __future__ import annotations

import ipaddress


def ip_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host literal spells (brackets, case and a trailing dot ignored; an
    IPv4-mapped IPv6 address as its IPv4 address), or ``None`` for a name: names are never
    resolved here (no DNS look-up decides where a key may go)."""
    literal = host.strip("[]").lower().rstrip(".")
    try:
        address = ipaddress.ip_address(literal)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_loopback_host(host: str) -> bool:
    """This machine only (``localhost``, ``::1``, any ``127.x.y.z`` address, mapped or not): a
    Codex id ``local-PORT``, a plain ``http://`` URL that needs no warning, a key-less test in
    the app, a bridge listening where no other machine reaches it. A name that merely starts
    with ``127.`` (``127.example.com``) is another machine's, and so is ``x.localhost``: not
    every resolver sends it to this machine, and a key may follow the answer."""
    if host.strip("[]").lower().rstrip(".") == "localhost":
        return True
    address = ip_of(host)
    return address is not None and address.is_loopback


def is_local_host(host: str) -> bool:
    """Loopback or a private address, or a ``localhost`` name (``vllm.localhost`` too): where
    the llm layer may take its direct transport. Only a speed choice, so the ``.localhost``
    names count here: if one resolves elsewhere, the request still goes where the profile
    says."""
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    address = ip_of(name)
    return address is not None and (address.is_loopback or address.is_private)
