"""The table server is live (issue #12): an action recorded by any process — a seat
through the API, the master at the CLI, another server process — reaches every open
stream within a second, already filtered for each seat. Against the real ``ledger
serve`` (tests/server_support.py)."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from tests.server_support import WHO, serving, table

DEADLINE = 1.0  # seconds (SERVER.md: within 1 s)


class Listener:
    """One open stream, read in a thread: every ``action`` event with when it came."""

    def __init__(self, base: str, headers: dict[str, str]):
        self.events: list[tuple[float, dict]] = []
        self.ready = threading.Event()
        self._thread = threading.Thread(target=self._listen, args=(base, headers), daemon=True)
        self._thread.start()
        assert self.ready.wait(10), "the stream did not open"

    def _listen(self, base: str, headers: dict[str, str]) -> None:
        try:
            self._read(base, headers)
        except httpx.HTTPError:
            pass  # the server stopped at the end of the module

    def _read(self, base: str, headers: dict[str, str]) -> None:
        with httpx.Client(timeout=httpx.Timeout(5, read=30)) as client, \
                client.stream("GET", f"{base}/api/campaigns/demo/stream", headers=headers) as response:
            assert response.status_code == 200
            kind = None
            for line in response.iter_lines():
                if line.startswith(": connected"):
                    self.ready.set()
                elif line.startswith("event:"):
                    kind = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and kind == "action":
                    self.events.append((time.monotonic(), json.loads(line[5:])))

    def wait_for(self, seq: int, until: float) -> tuple[float, dict]:
        while time.monotonic() < until:
            for at, data in self.events:
                if data["seq"] == seq:
                    return at, data
            time.sleep(0.005)
        raise AssertionError(f"seq {seq} did not arrive in time; got {[d['seq'] for _, d in self.events]}")


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    seated = table(tmp_path_factory.mktemp("live"))
    with serving(seated.db, workers=2) as base:
        listeners = {who: Listener(base, seated.headers(who)) for who in WHO}
        yield seated, base, listeners


def _arrivals(listeners: dict[str, Listener], seq: int, sent: float) -> dict[str, dict]:
    got = {}
    for who, listener in listeners.items():
        at, data = listener.wait_for(seq, sent + 5)
        assert at - sent <= DEADLINE, f"{who}'s stream got seq {seq} after {at - sent:.3f} s"
        got[who] = data
    return got


def test_an_action_at_the_cli_reaches_every_stream_within_a_second_filtered_per_seat(live):
    seated, _base, listeners = live
    sent = time.monotonic()
    out = json.loads(seated.ledger("--json", "--actor", "ana", "draw", "deck:item"))
    got = _arrivals(listeners, out["seq"], sent)
    drawn = out["events"][0]["cards"][0]
    assert got["ana"]["events"][0]["cards"] == [drawn]  # her own draw: she sees the card
    assert got["master"]["events"][0]["cards"] == [drawn]
    for who in ("bo", "public"):  # a face-down draw into Ana's hand: nobody else learns which
        assert drawn not in json.dumps(got[who]), who
        assert got[who]["events"][0]["cards"] == [None]
    assert got["public"]["checkpoint"]["seq"] == out["seq"]


def test_an_action_through_the_api_reaches_every_stream_within_a_second(live):
    seated, base, listeners = live
    sent = time.monotonic()
    reply = httpx.post(f"{base}/api/campaigns/demo/actions", headers=seated.headers("bo"),
                       json={"action": "exhaust", "cards": ["companion-wolf"]}, timeout=10)
    assert reply.status_code in (200, 409), reply.text
    if reply.status_code == 409:  # already exhausted in the demo: restore is as good
        reply = httpx.post(f"{base}/api/campaigns/demo/actions", headers=seated.headers("bo"),
                           json={"action": "restore", "cards": ["companion-wolf"]}, timeout=10)
    assert reply.status_code == 200, reply.text
    got = _arrivals(listeners, reply.json()["seq"], sent)
    assert {data["actor"] for data in (g["events"][0] for g in got.values())} == {"bo"}


def test_a_refused_action_reaches_no_stream(live):
    seated, base, listeners = live
    before = {who: len(listener.events) for who, listener in listeners.items()}
    reply = httpx.post(f"{base}/api/campaigns/demo/actions", headers=seated.headers("ana"),
                       json={"action": "discard", "cards": ["companion-wolf"]}, timeout=10)
    assert reply.status_code == 409
    time.sleep(0.5)
    assert {who: len(listener.events) for who, listener in listeners.items()} == before


def test_the_servers_log_never_prints_a_join_links_token(live):
    seated, base, _listeners = live
    token = seated.tokens["bo"]
    assert httpx.get(f"{base}/join/{token}", timeout=10).status_code == 200
    log = seated.db.with_name(f"serve-{base.rsplit(':', 1)[1]}.log")
    deadline = time.monotonic() + 5
    while "/join/****" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    text = log.read_text()
    assert "/join/****" in text
    assert token not in text


def test_the_access_log_writes_a_clients_escape_as_its_code():
    """Behind ``--proxy`` the client's address is what the proxy forwards (X-Forwarded-For),
    which a client may fill: the access log writes a character that is not printable as
    its code, never to the terminal the server runs in."""
    import logging

    from ledger.interface.server.app import _NoTokens

    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("1.2.3.4\x1b[31mEVIL\nfake", "GET", "/join/abc", "1.1", 200), None)
    assert _NoTokens().filter(record)
    line = record.getMessage()
    assert line.isprintable() and "\\x1b[31mEVIL\\nfake" in line and "/join/****" in line, line


def test_the_workers_listening_socket_is_tcp_so_replies_are_not_held_back():
    """``--workers N`` binds one socket for all workers; marked TCP, the accepted sockets get
    TCP_NODELAY from asyncio (uvicorn leaves it protocol 0: every keep-alive reply then
    waited ~40 ms on a delayed ACK)."""
    import socket

    import uvicorn

    from ledger.interface.server.app import as_tcp

    config = uvicorn.Config("ledger.interface.server.app:app_from_env", factory=True, host="127.0.0.1", port=0)
    sock = as_tcp(config.bind_socket())
    try:
        assert sock.proto == socket.IPPROTO_TCP and sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


def test_a_log_cut_under_open_streams_closes_them_with_one_log_line_not_one_a_poll(tmp_path):
    """The follower's copies of the campaigns are ahead of a log that shrank: its streams
    are closed (their pages reload, and open them again from the log), and the server
    says so once. It used to log a traceback at every poll, ten a second, as catching the
    read models up for the open streams was refused."""
    import sqlite3

    from tests.server_support import server

    seated = table(tmp_path)
    with server(seated.db, 1, tmp_path) as (base, _proc, log):
        opened = threading.Event()

        def listen() -> None:
            try:
                with httpx.stream("GET", f"{base}/api/campaigns/demo/stream", headers=seated.headers("ana"),
                                  timeout=10) as reply:
                    opened.set()
                    for _line in reply.iter_lines():
                        pass
            except httpx.HTTPError:  # the server stopping under it
                pass

        threading.Thread(target=listen, daemon=True).start()
        assert opened.wait(10)
        recorded = httpx.post(f"{base}/api/campaigns/demo/actions", json={"action": "battle start"},
                              headers=seated.headers("master"))
        assert recorded.status_code == 200, recorded.text
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the read models follow the action
            con = sqlite3.connect(seated.db)
            caught_up = con.execute("SELECT max(seq) FROM history").fetchone()[0] == recorded.json()["seq"]
            con.close()
            if caught_up:
                break
            time.sleep(0.1)
        con = sqlite3.connect(seated.db)
        with con:
            con.execute("DELETE FROM stored_events WHERE rowid = (SELECT max(rowid) FROM stored_events)")
        con.close()
        httpx.post(f"{base}/api/campaigns/demo/actions", json={"action": "battle end"},
                   headers=seated.headers("master"))  # refused: wakes the follower all the same
        time.sleep(2)
        refused = httpx.get(f"{base}/api/campaigns/demo/zones", headers=seated.headers("ana"))
        assert refused.status_code == 500 and refused.json()["error"]["code"] == "damaged"
        text = log.read_text()
    assert "Traceback" not in text
    assert text.count("the log shrank from notification") == 1, text
    assert text.count("catching the read models up failed") <= 1, text


@pytest.mark.parametrize("workers", [1, 2])
def test_stopping_the_server_ends_open_streams_without_a_traceback(tmp_path, workers):
    """A QA pass: SIGTERM with pages open waited out uvicorn's graceful shutdown, then
    cancelled each stream with ~60 lines of traceback in the log. Now every stream ends as
    the signal comes, with no "closed" event (its page reconnects when the server is back,
    rather than reloading to a server that is gone), and the log has no traceback."""
    import signal

    from tests.server_support import server

    seated = table(tmp_path)
    with server(seated.db, workers, tmp_path) as (base, proc, log):
        endings: list[list[str]] = []
        threads = []
        for who in ("ana", "bo", "master"):
            opened = threading.Event()

            def listen(who: str = who, opened: threading.Event = opened) -> None:
                lines: list[str] = []
                try:
                    with httpx.stream("GET", f"{base}/api/campaigns/demo/stream", headers=seated.headers(who),
                                      timeout=30) as reply:
                        for line in reply.iter_lines():
                            opened.set()
                            lines.append(line)
                except httpx.HTTPError as exc:  # (a stream cut, not ended, would show here)
                    lines.append(f"cut: {exc!r}")
                endings.append(lines)

            thread = threading.Thread(target=listen, daemon=True)
            thread.start()
            assert opened.wait(10)
            threads.append(thread)
        proc.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(30)
        proc.wait(30)
        text = log.read_text(errors="replace")
    assert len(endings) == 3
    for lines in endings:
        assert not any(line.startswith(("event: closed", "cut:")) for line in lines), lines
    assert "Traceback" not in text and "CancelledError" not in text and "graceful shutdown exceeded" not in text, text
