"""``ledger seat add|list|revoke`` (SERVER.md "Seats"): a join URL with a fresh random
token, shown once; only the token's SHA-256 is kept in the file (its bytes and its
-wal are searched); ``seat list`` never shows a token; ``seat revoke`` stops every token
of a seat; a WHO that is not master, public or a hero is refused with one line and
nothing appended."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ledger.application import Ledger
from ledger.catalog import sample_catalog_path
from ledger.interface.server.app import create_app
from ledger.seats import SeatBook

from .conftest import one_error_line, run_ledger, stored_events, succeeded

URL = re.compile(r"http://(?P<host>[^/:\s]+):(?P<port>\d+)/join/(?P<token>[A-Za-z0-9_-]+)")


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    db = tmp_path / "demo.db"
    succeeded(run_ledger("demo", db=db))
    return db


def add(db: Path, *args: str) -> dict:
    return json.loads(succeeded(run_ledger("--json", "seat", "add", *args, db=db)).stdout)


def file_bytes(db: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in db.parent.glob(db.name + "*")}


def test_seat_add_prints_the_join_url_once_with_a_fresh_token(demo):
    out = succeeded(run_ledger("seat", "add", "ana", db=demo, env={"COLUMNS": "1000"})).stdout
    found = URL.findall(out)
    assert len(found) == 1 and found[0][:2] == ("127.0.0.1", "8000"), out
    assert out.count(found[0][2]) == 1  # the token, once
    assert "not shown again" in out
    elsewhere = add(demo, "bo", "--host", "192.168.1.20", "--port", "8123")
    assert set(elsewhere) == {"who", "campaign", "url", "token"}
    assert elsewhere["who"] == "bo" and elsewhere["campaign"] == "demo"
    assert elsewhere["url"] == f"http://192.168.1.20:8123/join/{elsewhere['token']}"


@pytest.mark.parametrize("host", ["", "evil.example/x?", "a b", "host:9000", "-bad.example", "999.1.1.1",
                                  "fe80::1%eth0", "0.0.0.0", "::", "[::]", "0x", "0x7f000001", "table.0x1",
                                  "::ffff:0.0.0.0", "255.255.255.255", "224.0.0.1", "ff02::1"])
def test_seat_add_refuses_a_host_that_would_make_a_link_to_another_page_and_opens_no_seat(demo, host):
    """--host is a host name or an IP address: anything else (a path, a port, a blank, a
    name of digits that is no address, an address with a zone a link cannot carry) makes a
    link that opens some other page or none, and the address a server listens on
    everywhere is none a player can open; refused in one line before any seat opens."""
    before = stored_events(demo)
    result = run_ledger("seat", "add", "ana", "--host", host, db=demo)
    assert result.returncode == 1 and "--host" in one_error_line(result)
    assert stored_events(demo) == before


def test_seat_add_writes_an_ipv6_host_in_brackets(demo):
    for host in ("::1", "[::1]"):
        seat = add(demo, "ana", "--host", host)
        assert seat["url"] == f"http://[::1]:8000/join/{seat['token']}"
    for host, written in (("table.local.", "table.local."), ("10.0.0.7", "10.0.0.7"), ("a1.example", "a1.example")):
        seat = add(demo, "ana", "--host", host)
        assert seat["url"] == f"http://{written}:8000/join/{seat['token']}"


def test_seat_add_json_and_several_seats_at_once(demo):
    result = succeeded(run_ledger("--json", "seat", "add", "master", "public", "ana", db=demo))
    seats = [json.loads(line) for line in result.stdout.splitlines()]
    assert [s["who"] for s in seats] == ["master", "public", "ana"]
    for seat in seats:
        assert set(seat) == {"who", "campaign", "url", "token"}
        assert seat["url"] == f"http://127.0.0.1:8000/join/{seat['token']}"
    assert len({s["token"] for s in seats}) == 3


def test_a_token_is_at_least_128_random_bits_and_never_the_same(demo):
    tokens = [add(demo, who)["token"] for who in ("master", "public", "ana", "bo") * 5]
    assert len(set(tokens)) == len(tokens)
    for token in tokens:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert len(raw) * 8 >= 128, token
    # no long run of one character, no shared prefix: nothing but randomness in them
    assert len({t[:8] for t in tokens}) == len(tokens)


def test_only_the_hash_of_a_token_is_in_the_file_and_its_wal(demo):
    keeper = Ledger.open(demo)  # a connection held open keeps the -wal in place, as a running server does
    try:
        keeper.stored_event_count()
        seats = [add(demo, who) for who in ("master", "public", "ana", "bo")]
        files = file_bytes(demo)
        assert any(name.endswith("-wal") for name in files), sorted(files)  # the -wal is searched too
        everything = b"".join(files.values())
        for seat in seats:
            token = seat["token"]
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            for form in (token.encode(), token.encode("utf-16-le"), raw, raw.hex().encode(),
                         base64.b64encode(raw), seat["url"].encode()):
                assert form not in everything, f"the token is in the file ({form[:12]!r}…)"
            assert hashlib.sha256(token.encode()).hexdigest().encode() in everything
    finally:
        keeper.close()
    everything = b"".join(file_bytes(demo).values())  # and after the -wal is folded into the file
    for seat in seats:
        assert seat["token"].encode() not in everything


def test_seat_list_never_shows_a_token(demo):
    seats = [add(demo, who) for who in ("master", "ana", "ana", "public")]
    human = succeeded(run_ledger("seat", "list", db=demo, env={"COLUMNS": "1000"})).stdout
    listed = json.loads(succeeded(run_ledger("--json", "seat", "list", db=demo)).stdout)
    assert {row["who"]: row["links"] for row in listed} == {"master": 1, "ana": 2, "public": 1}
    for seat in seats:
        for shown in (human, json.dumps(listed)):
            assert seat["token"] not in shown and seat["token"][:12] not in shown
            assert hashlib.sha256(seat["token"].encode()).hexdigest()[:12] not in shown
    assert "/join/" not in human + json.dumps(listed)


def test_a_seat_whose_hero_add_was_undone_is_flagged_and_re_adding_the_hero_says_its_links_act_as_them(demo):
    """From a QA pass: a seat outlives an undone ``hero add``; its link read as the public
    and every action failed, and a hero added later under that id got the old link's holder
    as their seat. ``seat list`` says so ("hero": false), and re-adding the hero says whose
    links now act as them."""
    succeeded(run_ledger("hero", "add", "cy", db=demo))
    add(demo, "cy")
    add(demo, "ana")
    succeeded(run_ledger("undo", db=demo))
    listed = {row["who"]: row for row in json.loads(succeeded(run_ledger("--json", "seat", "list", db=demo)).stdout)}
    assert listed["cy"]["hero"] is False and listed["ana"]["hero"] is True, listed
    human = succeeded(run_ledger("seat", "list", db=demo, env={"COLUMNS": "1000"})).stdout
    assert "no hero cy in the campaign now: revoke it (ledger seat revoke cy)" in human
    again = succeeded(run_ledger("hero", "add", "cy", db=demo))
    assert "a seat for cy was opened before, 1 link: it now acts and sees as this hero" in again.stderr
    assert "ledger seat revoke cy" in again.stderr
    quiet = succeeded(run_ledger("hero", "add", "dee", db=demo))
    assert "seat" not in quiet.stderr


def test_verify_reads_the_seats_log_and_names_a_damaged_record(demo):
    """Found by a QA pass: with a seat's record made unreadable, ``seat list`` refused (and
    the table server could not serve) while ``verify`` said ok."""
    import sqlite3

    add(demo, "ana")
    succeeded(run_ledger("verify", db=demo))
    with sqlite3.connect(demo) as db:
        db.execute("UPDATE stored_events SET state = CAST('{' AS BLOB) WHERE topic LIKE '%SeatOpened'")
    db.close()
    result = run_ledger("verify", db=demo)  # (the read models, which marked the row, say they were rebuilt)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.splitlines()[-1].startswith("error: a record of the database's seats cannot be read"), \
        result.stderr


def test_seat_revoke_stops_every_token_of_that_seat_and_no_other(demo):
    first, second, bo = add(demo, "ana")["token"], add(demo, "ana")["token"], add(demo, "bo")["token"]
    with TestClient(create_app(str(demo))) as client:
        for token in (first, second, bo):
            assert client.get("/api/campaigns/demo/checkpoint",
                              headers={"Authorization": f"Bearer {token}"}).status_code == 200
        out = json.loads(succeeded(run_ledger("--json", "seat", "revoke", "ana", db=demo)).stdout)
        assert out == {"who": "ana", "revoked": 2}
        for token in (first, second):
            reply = client.get("/api/campaigns/demo/checkpoint", headers={"Authorization": f"Bearer {token}"})
            assert reply.status_code == 401
        assert client.get("/api/campaigns/demo/checkpoint",
                          headers={"Authorization": f"Bearer {bo}"}).status_code == 200
    ledger = Ledger.open(demo)
    try:
        book = SeatBook(ledger)
        assert book.find(first) is None and book.find(second) is None and book.find(bo) is not None
        assert [s.who for s in book.seats(ledger.resolve("demo"))] == ["bo"]
    finally:
        ledger.close()
    listed = json.loads(succeeded(run_ledger("--json", "seat", "list", db=demo)).stdout)
    assert [row["who"] for row in listed] == ["bo"]
    # revoked already: refused, nothing appended
    before = stored_events(demo)
    line = one_error_line(run_ledger("seat", "revoke", "ana", db=demo))
    assert "ana" in line and stored_events(demo) == before
    # a new seat for ana works again
    fresh = add(demo, "ana")["token"]
    ledger = Ledger.open(demo)
    try:
        assert SeatBook(ledger).find(fresh) is not None
    finally:
        ledger.close()


@pytest.mark.parametrize("who", ["zed", "ANA", "ana ", "", "deck:item", "item-sword", "master,ana", "x" * 300])
def test_a_who_that_is_not_master_public_or_a_hero_is_refused_with_nothing_appended(demo, who):
    before = stored_events(demo)
    result = run_ledger("seat", "add", who, db=demo)
    line = one_error_line(result)
    assert len(line) < 400 and "Traceback" not in result.stderr
    assert stored_events(demo) == before
    # one bad WHO among good ones: no seat at all is opened
    result = run_ledger("--json", "seat", "add", "master", who, "ana", db=demo)
    one_error_line(result)
    assert "token" not in result.stdout and "/join/" not in result.stdout
    assert stored_events(demo) == before


@pytest.mark.parametrize("who, near", [("Master", "master"), ("PUBLIC", "public"), ("ANA", "ana"), ("ana ", "ana"),
                                       ("Referee", "master")])
def test_a_who_in_the_wrong_case_asks_whether_the_id_was_meant(demo, who, near):
    """A QA pass: `seat add Master` said "no hero 'Master' in this campaign (heroes: ana,
    bo)", naming no seat but the heroes; `--as Master` already asked."""
    before = stored_events(demo)
    line = one_error_line(run_ledger("seat", "add", who, db=demo))
    assert f"did you mean {near}?" in line, line
    assert stored_events(demo) == before


def test_referee_is_refused_with_a_hint_to_use_master(demo):
    before = stored_events(demo)
    for args in (("seat", "add", "referee"), ("--json", "seat", "add", "referee")):
        result = run_ledger(*args, db=demo)
        line = one_error_line(result)
        assert "master" in line and "referee" in line
        assert "token" not in result.stdout and "/join/" not in result.stdout
    assert stored_events(demo) == before


def test_only_the_master_opens_or_revokes_seats(demo):
    """A hero (``--actor ana``) gets no join link, not even their own, and revokes none."""
    succeeded(run_ledger("seat", "add", "bo", db=demo))
    before = stored_events(demo)
    for args in (("seat", "add", "master"), ("seat", "add", "ana"), ("--json", "seat", "add", "public"),
                 ("seat", "revoke", "bo")):
        result = run_ledger("--actor", "ana", *args, db=demo)
        line = one_error_line(result)
        assert "master" in line and "token" not in result.stdout and "/join/" not in result.stdout
    assert stored_events(demo) == before
    assert "bo" in succeeded(run_ledger("seat", "list", db=demo)).stdout


def test_seat_add_without_who_is_a_usage_error(demo):
    result = run_ledger("seat", "add", db=demo)
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_seats_belong_to_their_campaign(demo):
    succeeded(run_ledger("--campaign", "two", "init", "--catalog", str(sample_catalog_path()), db=demo))
    two = add(demo, "--campaign", "two", "master")
    assert two["campaign"] == "two"
    # a hero of demo is no hero of two
    before = stored_events(demo)
    one_error_line(run_ledger("--campaign", "two", "seat", "add", "ana", db=demo))
    assert stored_events(demo) == before
    listed = json.loads(succeeded(run_ledger("--json", "--campaign", "two", "seat", "list", db=demo)).stdout)
    assert [row["who"] for row in listed] == ["master"]
    assert json.loads(succeeded(run_ledger("--json", "--campaign", "demo", "seat", "list", db=demo)).stdout) == []
    # revoking demo's master leaves two's master in force
    add(demo, "--campaign", "demo", "master")
    succeeded(run_ledger("--campaign", "demo", "seat", "revoke", "master", db=demo))
    ledger = Ledger.open(demo)
    try:
        assert SeatBook(ledger).find(two["token"]) is not None
    finally:
        ledger.close()


def test_serve_where_it_cannot_listen_is_one_line_and_exit_1(demo: Path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_ledger("serve", "--port", str(port), db=demo)
        assert "address already in use" in one_error_line(done).lower()
    assert "not an address" in one_error_line(run_ledger("serve", "--host", "nowhere.invalid", db=demo))


def _zones_status(base: str, token: str, client: str) -> int:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{base}/api/campaigns/demo/zones",
                                     headers={"Authorization": f"Bearer {token}", "X-Forwarded-For": client})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("proxy", [True, False], ids=["serve-proxy", "no-proxy-option"])
def test_behind_a_proxy_a_strangers_bad_tokens_are_held_back_by_the_address_the_proxy_forwards(demo, tmp_path, proxy):
    """Behind the HTTPS proxy the README recommends, every request comes from the proxy's
    address. With ``serve --proxy ADDRESS`` failed tokens are counted by the client address
    the proxy forwards, so a stranger's guesses hold back only the stranger's next bad
    tokens; without it the forwarded address is not believed (anyone could send it), and
    every bad token through the proxy is held back. Either way a player's seat is served."""
    from .server_support import server

    token = add(demo, "ana")["token"]
    options = ("--proxy", "127.0.0.1") if proxy else ()
    with server(demo, 1, tmp_path, options=options) as (base, _proc, _log):
        for _ in range(10):
            assert _zones_status(base, "x" * 43, "203.0.113.9") == 401  # a stranger guessing
        assert _zones_status(base, "x" * 43, "203.0.113.9") == 429
        assert _zones_status(base, "y" * 43, "198.51.100.7") == (401 if proxy else 429)  # someone else's typo
        assert _zones_status(base, token, "198.51.100.7") == 200  # ana, through the proxy
        assert _zones_status(base, token, "203.0.113.9") == 200  # even from the stranger's address


def test_serve_takes_db_after_the_command_as_server_md_writes_it(demo, tmp_path):
    """A QA pass: SERVER.md's `ledger serve [--db PATH|URL] ...` was "--db is a global option"."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_ledger("serve", "--db", str(demo), "--port", str(port), cwd=tmp_path)
        assert "address already in use" in one_error_line(done).lower()  # the file was opened: it is a campaign's
    missing = one_error_line(run_ledger("serve", "--db", str(tmp_path / "none.db"), cwd=tmp_path))
    assert "no campaign database at" in missing and "none.db" in missing, missing
    twice = one_error_line(run_ledger("serve", "--db", str(demo), db=demo), exit_codes=(2,))
    assert "--db is given twice" in twice, twice


def test_serve_proxy_takes_an_ip_address(demo):
    assert "--proxy" in one_error_line(run_ledger("serve", "--proxy", "my-proxy", db=demo))
