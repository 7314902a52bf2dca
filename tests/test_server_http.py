"""The aiohttp server over real sockets on 127.0.0.1 (served from a thread of this process)."""

from __future__ import annotations

import dataclasses
import http.client
import socket
import urllib.error
import urllib.request

import pytest

from c10k.durations import parse_latency
from server.app import Delivery
from server.cli import parse_options
from server.site import Site
from server.site_params import FAULT_OUTCOMES, SiteParams
from tests.server_helpers import (
    SteppedClock,
    get_json,
    make_site,
    paths,
    raw_get,
    serve_in_thread,
    wait_for,
)
from tests.test_site_model import BUSY


def test_serves_what_the_model_says() -> None:
    site = Site(
        SiteParams(
            pages=60,
            links=5,
            seed=4,
            slash_redirect=0.1,
            redirect_chain=0.05,
            missing=0.1,
            non_html=0.1,
            query=0.1,
            absolute=0.2,
        )
    )
    with serve_in_thread(site) as srv:
        authority = srv.url.split("/")[2]
        for path in paths(site.manifest(srv.url), srv.url):
            reply = raw_get(srv.url, path)
            expected = site.response(path, authority)
            assert reply.error is None
            assert reply.status == expected.status, path
            assert reply.body == expected.body, path
            for name, value in expected.headers:
                assert reply.head[name.lower()] == value
            assert int(reply.head["content-length"]) == len(expected.body)


def test_manifest_endpoint() -> None:
    site = make_site(pages=5, links=2)
    site.add_link(None, site.add_chain([301] * 3, "/p/1/?via=chain"))
    with serve_in_thread(site) as srv:
        got = get_json(srv.url + "__manifest__")
        assert got["urls"] == site.manifest(srv.url)
        assert got["count"] == len(got["urls"])
        small = get_json(srv.url + "__manifest__?max_redirect=1")
        assert small["urls"] == site.manifest(srv.url, max_redirect=1)
        with pytest.raises(urllib.error.HTTPError) as info:
            get_json(srv.url + "__manifest__?max_redirect=-3")
        assert info.value.code == 400


def test_each_part_has_its_root_and_its_manifest() -> None:
    site = Site(dataclasses.replace(BUSY, pages=90, parts=3))
    with serve_in_thread(site) as srv:
        roots = [f"{srv.url}?part={k}" for k in range(3)]
        assert get_json(srv.url + "__parts__") == {"parts": 3, "roots": roots}
        for k, root in enumerate(roots):
            got = get_json(f"{srv.url}__manifest__?part={k}")["urls"]
            assert got == site.manifest(root) and root in got
        assert get_json(srv.url + "__manifest__")["urls"] == site.manifest(srv.url)
        for wrong in ("3", "x", ""):
            with pytest.raises(urllib.error.HTTPError) as info:
                get_json(f"{srv.url}__manifest__?part={wrong}")
            assert info.value.code == 400


def test_a_site_of_one_part_lists_its_own_root() -> None:
    with serve_in_thread(make_site(pages=2)) as srv:
        assert get_json(srv.url + "__parts__") == {"parts": 1, "roots": [srv.url]}


def test_latency_is_applied() -> None:
    clock = SteppedClock()
    delivery = Delivery(latency=parse_latency("300ms"))
    with serve_in_thread(make_site(pages=2), delivery, clock) as srv:
        reply = raw_get(srv.url, "/p/0/")
        assert reply.status == 200
        assert clock.waits == [pytest.approx(0.3)]  # one wait of the latency, then the page


def test_a_root_that_answers_at_once_waits_for_nothing_and_the_pages_do() -> None:
    clock = SteppedClock()
    delivery = Delivery(latency=parse_latency("300ms"), root_latency=False)
    with serve_in_thread(make_site(pages=2, parts=2), delivery, clock) as srv:
        assert raw_get(srv.url, "/").status == 200
        assert clock.waits == []  # the hub: no wait
        assert raw_get(srv.url, "/?part=0").status == 200
        assert clock.waits == []  # a part's hub neither
        assert raw_get(srv.url, "/p/0/").status == 200
        assert clock.waits == [pytest.approx(0.3)]  # a page: its latency


def test_root_now_is_a_serve_option() -> None:
    assert not parse_options(["--latency", "2s", "--root-now"]).delivery.root_latency
    assert parse_options(["--latency", "2s"]).delivery.root_latency


class BusyClock(SteppedClock):
    """A clock that also moves while the handler works: each reading costs `work_s`."""

    def __init__(self, work_s: float) -> None:
        super().__init__()
        self.work_s = work_s

    def now(self) -> float:
        reading = self.time
        self.time += self.work_s
        return reading


@pytest.mark.parametrize(
    ("work_s", "waits"),
    [(0.004, [pytest.approx(0.296)]), (0.5, [])],
    ids=["work inside the latency", "work longer than the latency"],
)
def test_the_answer_is_due_at_arrival_plus_the_latency(work_s: float, waits: list[float]) -> None:
    # The handler's own time is taken out of the wait, so the reply leaves at arrival + L,
    # not at arrival + work + L; work longer than L is not waited for at all.
    clock = BusyClock(work_s)
    delivery = Delivery(latency=parse_latency("300ms"))
    with serve_in_thread(make_site(pages=2), delivery, clock) as srv:
        assert raw_get(srv.url, "/p/0/").status == 200
        assert clock.waits == waits


def test_pipelined_requests_are_due_at_their_own_arrival() -> None:
    # Both heads arrive in one packet at t=0. The second is answered after the first (HTTP/1.1
    # order), at t=0.3, which is already its own arrival + L: it waits no more. Timed from
    # when its handler started instead, it would wait another 0.3 s.
    clock = SteppedClock()
    delivery = Delivery(latency=parse_latency("300ms"))
    with serve_in_thread(make_site(pages=2), delivery, clock) as srv:
        port = int(srv.url.split(":")[2][:-1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                b"GET /p/0/ HTTP/1.1\r\nHost: x\r\n\r\n"
                b"GET /p/1/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert data.count(b"HTTP/1.1 200 OK") == 2
        assert clock.waits == [pytest.approx(0.3)]


def test_control_requests_keep_the_arrivals_in_step() -> None:
    # One keep-alive connection: a control request, then two pages, each sent after the
    # previous answer. Each page waits its full latency from its own arrival; a control
    # request that left its arrival behind would make the last page use the one before.
    clock = SteppedClock()
    delivery = Delivery(latency=parse_latency("300ms"))
    with serve_in_thread(make_site(pages=2), delivery, clock) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", int(srv.url.split(":")[2][:-1]), timeout=10)
        try:
            for path in ("/__stats__", "/p/0/", "/p/1/"):
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                assert response.status == 200
        finally:
            conn.close()
        assert clock.waits == [pytest.approx(0.3), pytest.approx(0.3)]


def test_control_endpoints_have_no_latency() -> None:
    # With an hour of latency, an answer at all proves the control endpoint skipped it.
    delivery = Delivery(latency=parse_latency("3600s"))
    with serve_in_thread(make_site(pages=2), delivery) as srv:
        assert raw_get(srv.url, "/__stats__", timeout=30).status == 200


def test_bandwidth_trickles_the_body() -> None:
    clock = SteppedClock()
    delivery = Delivery(bandwidth=10_000)
    with serve_in_thread(make_site(pages=2, body_size=4000), delivery, clock) as srv:
        reply = raw_get(srv.url, "/p/0/")
        assert len(reply.body) == 4000
        # 4000 bytes at 10 kB/s in 500-byte chunks: the first at once, then one every 0.05 s.
        assert clock.waits == pytest.approx([0.05] * 7)


@pytest.mark.parametrize("kind", ["reset", "hang", "error500", "truncate", "garbage"])
def test_faults_happen_where_the_manifest_says(kind: str) -> None:
    site = make_site(pages=3, links=0, shape="wide")
    site.set_fault(1, kind)
    delivery = Delivery(hang=0.5)
    with serve_in_thread(site, delivery) as srv:
        assert site.manifest(srv.url)[srv.url + "p/1/"] == FAULT_OUTCOMES[kind]
        assert raw_get(srv.url, "/p/0/").status == 200
        reply = raw_get(srv.url, "/p/1/", timeout=0.2 if kind == "hang" else 5.0)
        if kind == "reset":
            assert (reply.error, reply.data) == ("reset", b"")
        elif kind == "hang":
            assert (reply.error, reply.data) == ("timeout", b"")
        elif kind == "error500":
            assert reply.status == 500
        elif kind == "truncate":
            assert reply.error is None and reply.status == 200
            assert 0 < len(reply.body) < int(reply.head["content-length"])
        else:
            assert reply.error is None and reply.data and not reply.data.startswith(b"HTTP/")
        stats = get_json(srv.url + "__stats__")
        assert stats["faults"] == 1
        # The hang ends by itself (--hang) and every request is finished.
        assert wait_for(lambda: get_json(srv.url + "__stats__")["in_flight"] == 0)


def test_hang_closes_after_the_hang_time() -> None:
    site = make_site(pages=1, links=0, shape="wide")
    site.set_fault(0, "hang")
    clock = SteppedClock()
    with serve_in_thread(site, Delivery(hang=0.3), clock) as srv:
        reply = raw_get(srv.url, "/p/0/", timeout=10)
        # The server waited the hang time, then closed without a byte (not our timeout).
        assert (reply.data, reply.error) == (b"", None)
        assert clock.waits == [0.3]


def test_stats_count_requests_in_flight() -> None:
    delivery = Delivery(latency=parse_latency("1s"))
    with serve_in_thread(make_site(pages=10), delivery) as srv:
        stats_url = srv.url + "__stats__"
        clients = []
        for i in range(5):
            sock = socket.create_connection(("127.0.0.1", int(srv.url.split(":")[2][:-1])))
            sock.sendall(f"GET /p/{i}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            clients.append(sock)
        try:
            assert wait_for(lambda: get_json(stats_url)["in_flight"] == 5)
            stats = get_json(stats_url)
            assert stats["requests"] == 5 and stats["peak_in_flight"] == 5
            # when the first and the last of them began, by the server's clock
            assert 0 < stats["first_begin_at"] <= stats["last_begin_at"]
        finally:
            for sock in clients:
                sock.settimeout(10)
                assert sock.recv(100).startswith(b"HTTP/1.1 200")
                sock.close()
        assert wait_for(lambda: get_json(stats_url)["in_flight"] == 0)
        stats = get_json(stats_url)
        assert stats["requests"] == 5  # the stats requests themselves are not counted
        assert stats["peak_in_flight"] == 5
        assert stats["bytes_sent"] > 5 * 2048
        assert stats["workers"] == 1 and stats["requests_by_worker"] == [5]


def test_in_flight_drops_when_the_client_goes_away() -> None:
    site = make_site(pages=1, links=0, shape="wide")
    site.set_fault(0, "hang")
    with serve_in_thread(site, Delivery(hang=60)) as srv:
        port = int(srv.url.split(":")[2][:-1])
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"GET /p/0/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert wait_for(lambda: get_json(srv.url + "__stats__")["in_flight"] == 1)
        sock.close()
        assert wait_for(lambda: get_json(srv.url + "__stats__")["in_flight"] == 0)


def test_stats_reset() -> None:
    with serve_in_thread(make_site(pages=3)) as srv:
        for _ in range(3):
            raw_get(srv.url, "/")
        assert get_json(srv.url + "__stats__")["requests"] == 3
        after = get_json(srv.url + "__stats__/reset", method="POST")
        assert (after["requests"], after["bytes_sent"], after["peak_in_flight"]) == (0, 0, 0)
        assert after["first_begin_at"] is None and after["last_begin_at"] is None
        assert get_json(srv.url + "__stats__")["requests"] == 0
        assert raw_get(srv.url, "/__stats__/reset").status == 405
        assert raw_get(srv.url, "/__nothing__").status == 404


def test_connection_close_is_honoured() -> None:
    with serve_in_thread(make_site(pages=2)) as srv:
        reply = raw_get(srv.url, "/p/1/")  # reads to EOF: the server closed the connection
        assert reply.error is None and reply.status == 200
        assert reply.head.get("connection", "close").lower() == "close"


def test_absolute_links_use_the_request_host() -> None:
    site = make_site(pages=3, links=2, absolute=1.0)
    with serve_in_thread(site) as srv:
        authority = srv.url.split("/")[2]
        assert f'href="HTTP://{authority}/p/'.encode() in raw_get(srv.url, "/p/0/").body


def test_urllib_client_sees_a_redirect() -> None:
    site = make_site(pages=2, links=0, shape="wide")
    with serve_in_thread(site) as srv, urllib.request.urlopen(srv.url + "p/1", timeout=10) as r:
        assert r.url == srv.url + "p/1/" and r.status == 200
