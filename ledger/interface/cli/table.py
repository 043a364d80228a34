"""The table server from the CLI (SERVER.md): ``seat add|list|revoke`` hand out and take
back the join links players open on their own devices, and ``serve`` runs the server."""

from __future__ import annotations

import re

import click

from ...errors import BadInput
from ...i18n import N_, _, ngettext
from .group import cli
from .session import Session, WholeRange, note_line, pass_session

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def _campaign(s: Session, campaign: str | None) -> None:
    if campaign is not None:
        s.campaign_slug = campaign


@cli.group()
def seat() -> None:
    """Seats at the table server: a join link per player, the master and the public.

    \b
    Example: ledger seat add ana
    """


@seat.command("add")
@click.argument("who", nargs=-1, required=True)
@click.option("--campaign", "campaign", default=None, help="Which campaign (default: the global --campaign).")
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="The host players reach the server at.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=WholeRange(1, 65535),
              help="The server's port.")
@pass_session
def seat_add(s: Session, who: tuple[str, ...], campaign: str | None, host: str, port: int) -> None:
    """A seat for each WHO (master, public or a hero id): prints its join link, once.

    The link holds a fresh random token; only its hash is kept in the file. Whoever opens
    the link acts and sees as WHO, so hand it to that player only. With --json, one
    object per seat: {"who", "campaign", "url", "token"}.

    \b
    Example: ledger seat add master ana bo --host 192.168.1.20
    """
    from ...rules import master_only
    from ...seats import check_who, open_seat

    master_only(s.actor, N_("opens seats at the table"))
    _campaign(s, campaign)
    host = _link_host(host)
    ledger, cid = s.ledger(), s.cid()
    for each in who:  # every WHO checked before any seat is opened
        check_who(ledger, cid, each)
    slug = ledger.campaign(cid).slug
    for each in who:
        token = open_seat(ledger, cid, each)
        url = f"http://{host}:{port}/join/{token}"
        # --json: {"who", "campaign", "url", "token"} as the help says, and no message (the link is the output)
        s.emit({"who": each, "campaign": slug, "url": url, "token": token},
               human=_("seat for {who} in {campaign}: {url}").format(who=f"[bold]{each}[/bold]", campaign=slug,
                                                                      url=url))
    if not s.as_json:
        s.emit(None, human="[dim]" + _("give each link to that player only; it is not shown again") + "[/dim]")


_HOST_NAME = re.compile(r"(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")


# a last label a browser reads as a number (WHATWG URL: 0x7f000001, 0x, 999): no host name
_NUMERIC_LABEL = re.compile(r"(?i)0x[0-9a-f]*|[0-9]+")


def _link_host(host: str) -> str:
    """``--host`` as a join link writes it: a host name or an IP address (an IPv6 one in
    brackets); anything else (a path, a port, a blank, a name all of digits such as
    999.1.1.1, an address with a zone such as fe80::1%eth0) would make a link that opens
    some other page or none, so it is refused before any seat is opened; so are the address
    a server listens on everywhere (0.0.0.0, ::) and multicast or broadcast ones, which no
    player can open."""
    import ipaddress

    wrong = _("--host {host!r}: not a host name or an IP address (e.g. --host 192.168.1.20, or a name such as "
              "table.local); the port is --port").format(host=host)
    try:
        address = ipaddress.ip_address(host[1:-1] if host.startswith("[") and host.endswith("]") else host)
    except ValueError:
        if _HOST_NAME.fullmatch(host) and not _NUMERIC_LABEL.fullmatch(host.rstrip(".").rsplit(".", 1)[-1]):
            return host
        raise BadInput(wrong) from None
    if getattr(address, "scope_id", None):
        raise BadInput(wrong)
    mapped = getattr(address, "ipv4_mapped", None) or address
    if mapped.is_unspecified or mapped.is_multicast or mapped == ipaddress.ip_address("255.255.255.255"):
        raise BadInput(_("--host {host}: no player can open a link to it (a server listens there on every address, "
                         "or it is a multicast or broadcast one); give this machine's address on the network (e.g. "
                         "--host 192.168.1.20)").format(host=repr(host)))
    return f"[{address}]" if address.version == 6 else str(address)


@seat.command("list")
@click.option("--campaign", "campaign", default=None, help="Which campaign (default: the global --campaign).")
@pass_session
def seat_list(s: Session, campaign: str | None) -> None:
    """The seats in force (who, how many links, since when); never the tokens.

    \b
    Example: ledger seat list
    """
    from ...seats import SeatBook
    from ...vocabulary import MASTER, PUBLIC

    _campaign(s, campaign)
    ledger, cid = s.ledger(), s.cid()
    seats = SeatBook(ledger).seats(cid)
    heroes = ledger.campaign(cid).table.heroes
    rows: dict[str, dict[str, object]] = {}
    for found in seats:
        # a hero's seat whose hero is not in the campaign (its hero add undone) is "hero": false
        row = rows.setdefault(found.who, {"who": found.who, "links": 0, "since": found.opened.isoformat(),
                                          "hero": found.who in heroes if found.who not in (MASTER, PUBLIC) else None})
        row["links"] = int(row["links"]) + 1  # type: ignore[call-overload]
    data = list(rows.values())
    width = max((len(str(r["who"])) for r in data), default=0)  # the names in a column, the time as history shows it
    lines = [f"{str(r['who']).ljust(width)}  " + ngettext("{n} link since {since}", "{n} links since {since}",
                                                          links).format(
        n=links, since=str(r["since"])[:19].replace("T", " ") + " UTC") + (_(
            "; no hero {hero} in the campaign now: revoke it (ledger seat revoke {hero}), or it will be the seat of "
            "a hero added as {hero} later").format(hero=r["who"]) if r["hero"] is False else "")
        for r in data for links in (int(r["links"]),)]  # type: ignore[call-overload]
    s.emit(data, human="\n".join(lines) or _("no seats yet; add one with ledger seat add WHO"))


@seat.command("revoke")
@click.argument("who")
@click.option("--campaign", "campaign", default=None, help="Which campaign (default: the global --campaign).")
@pass_session
def seat_revoke(s: Session, who: str, campaign: str | None) -> None:
    """Every link of WHO's seat stops working (open pages and streams included).

    \b
    Example: ledger seat revoke ana
    """
    from ...rules import master_only
    from ...seats import revoke_seat

    master_only(s.actor, N_("revokes seats at the table"))
    _campaign(s, campaign)
    count = revoke_seat(s.ledger(), s.cid(), who)
    # --json: {"who", "revoked"}, ids and a count only
    s.emit({"who": who, "revoked": count}, human=ngettext("revoked {n} link of {who}'s seat",
                                                          "revoked {n} links of {who}'s seat", count).format(
        n=count, who=who))


@cli.command()
@click.option("--host", default=DEFAULT_HOST, show_default=True,
              help="The address to listen on (0.0.0.0 lets other devices on the network in).")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=WholeRange(1, 65535), help="The port.")
@click.option("--workers", default=1, show_default=True, type=WholeRange(1, 64), help="Server processes.")
@click.option("--proxy", default=None, metavar="ADDRESS",
              help="The address of the HTTPS proxy in front of the server: the client address it forwards "
                   "(X-Forwarded-For) is the one failed tokens are counted by, not the proxy's.")
@click.option("--db", "db", default=None, metavar="PATH|URL",
              help="The campaign database, as the global --db says it (SERVER.md writes it here).")
@pass_session
def serve(s: Session, host: str, port: int, workers: int, proxy: str | None, db: str | None) -> None:
    """Serve every campaign of the file to the seats' own devices (SERVER.md).

    \b
    Example: ledger --db demo.db serve    then open the links of ledger seat add
             ledger serve --db demo.db --proxy 127.0.0.1    behind an HTTPS proxy on this machine
    """
    from ..server.app import run

    if db is not None:
        parent = click.get_current_context().parent
        if parent is not None and parent.get_parameter_source("db") == click.core.ParameterSource.COMMANDLINE:
            raise click.UsageError(_("--db is given twice (before serve and after it); give it once"))
        s.close()
        s.db = db
    s.ledger()  # refuse a missing or foreign file here, with its one line
    s.close()
    _port_free(host, port)
    if proxy is not None:
        _proxy_address(proxy)
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(note_line(_("serving on {host}: anyone who can reach it and holds a join link can use it; "
                               "the links travel unencrypted over plain http").format(host=host)), err=True)
    run(s.db, host=host, port=port, workers=workers, proxy=proxy)


def _proxy_address(proxy: str) -> None:
    """``--proxy``: one IP address (a name would be resolved by nobody: uvicorn compares
    the peer's address with it as written)."""
    import ipaddress

    try:
        ipaddress.ip_address(proxy)
    except ValueError:
        raise BadInput(_("--proxy {proxy}: give the proxy's IP address, e.g. 127.0.0.1").format(
            proxy=repr(proxy))) from None


def _port_free(host: str, port: int) -> None:
    """Refuses, in one line, an address the server could not listen on (before uvicorn
    would start and stop with a log of its own)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise BadInput(_("--host {host}: not an address of this machine ({reason})").format(
            host=host, reason=exc.strerror or exc)) from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise BadInput(_("cannot listen on {host}:{port} ({reason}); "
                             "another server may be using it: pick another with --port").format(
                host=host, port=port, reason=exc.strerror or exc)) from None
