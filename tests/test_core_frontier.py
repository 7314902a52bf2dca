"""The frontier's rules, driven by a dictionary standing in for a site (no network)."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from impls.core import CrawlConfig, ErrorKind, Frontier, Response
from impls.core.outcomes import Outcome

ROOT = "http://127.0.0.1:8080/"


def page(*hrefs: str) -> Response:
    body = "".join(f'<a href="{href}">x</a>' for href in hrefs).encode()
    return Response(200, {"content-type": "text/html"}, body)


def redirect(location: str, status: int = 302) -> Response:
    return Response(status, {"location": location})


def crawl(site: Mapping[str, Response | ErrorKind], **options: int) -> dict[str, Outcome]:
    """Crawl the site breadth-first; paths missing from it are 404s."""
    frontier = Frontier(CrawlConfig(root=ROOT, **options))  # type: ignore[arg-type]
    queue = deque(frontier.start())
    while queue:
        job = queue.popleft()
        answer = site.get(job.url.removeprefix(ROOT[:-1]), Response(404))
        if isinstance(answer, ErrorKind):
            queue.extend(frontier.on_error(job, answer))
        else:
            queue.extend(frontier.on_response(job, answer))
    return {url.removeprefix(ROOT[:-1]): outcome for url, outcome in frontier.fetched.items()}


def test_link_cycle() -> None:
    assert crawl({"/": page("/a"), "/a": page("/", "/a")}) == {"/": 200, "/a": 200}


def test_redirect_cycle() -> None:
    site = {"/": page("/a"), "/a": redirect("/b"), "/b": redirect("/a")}
    assert crawl(site) == {"/": 200, "/a": 302, "/b": 302}


def test_redirect_join() -> None:
    site = {"/": page("/a", "/b"), "/a": redirect("/c"), "/b": redirect("/c"), "/c": page()}
    assert crawl(site) == {"/": 200, "/a": 302, "/b": 302, "/c": 200}


def test_chain_longer_than_the_budget_stops_at_the_budget() -> None:
    site: dict[str, Response | ErrorKind] = {"/": page("/r0")}
    site |= {f"/r{i}": redirect(f"/r{i + 1}") for i in range(10)}
    fetched = crawl(site, max_redirect=3)
    assert [url for url in fetched if url.startswith("/r")] == ["/r0", "/r1", "/r2", "/r3"]


def test_exhausted_redirect_target_is_fetched_when_linked_later() -> None:
    site = {"/": page("/r"), "/r": redirect("/t"), "/t": page()}
    assert "/t" not in crawl(site, max_redirect=0)
    site["/"] = page("/r", "/other")
    site["/other"] = page("/t")
    assert crawl(site, max_redirect=0)["/t"] == 200


def test_redirect_without_location_is_a_plain_response() -> None:
    assert crawl({"/": page("/a"), "/a": Response(302)}) == {"/": 200, "/a": 302}


def test_links_only_from_ok_html() -> None:
    html_404 = Response(404, {"content-type": "text/html"}, b'<a href="/x">')
    text = Response(200, {"content-type": "text/plain"}, b'<a href="/y">')
    site = {"/": page("/missing", "/text"), "/missing": html_404, "/text": text}
    assert crawl(site) == {"/": 200, "/missing": 404, "/text": 200}


def test_prohibited_hosts_are_never_queued() -> None:
    site = {
        "/": page(
            "http://example.com/",
            "https://127.0.0.1:8080/",
            "http://127.0.0.1:8081/",
            "mailto:a@b.c",
            "javascript:void(0)",
            "/ok",
        ),
        "/ok": redirect("http://example.com/elsewhere"),
    }
    assert crawl(site) == {"/": 200, "/ok": 302}


def test_fragments_and_default_port_collapse_to_one_url() -> None:
    site = {"/": page("/a#one", "/a#two", "http://127.0.0.1:8080/a", "a")}
    assert crawl(site) == {"/": 200, "/a": 404}


def test_max_tries_retries_connection_errors() -> None:
    fetched = crawl({"/": page("/r", "/t", "/c"), "/r": ErrorKind.RESET}, max_tries=3)
    assert fetched["/r"] == "error:reset"


def test_errors_that_will_not_change_are_not_retried() -> None:
    frontier = Frontier(CrawlConfig(root=ROOT))
    (job,) = frontier.start()
    assert frontier.on_error(job, ErrorKind.PROTOCOL) == []
    assert frontier.fetched == {ROOT: "error:protocol"}


def test_retry_returns_the_same_job_until_the_tries_run_out() -> None:
    frontier = Frontier(CrawlConfig(root=ROOT, max_tries=2))
    (job,) = frontier.start()
    assert frontier.on_error(job, ErrorKind.TIMEOUT) == [job]
    assert frontier.on_error(job, ErrorKind.TIMEOUT) == []
    assert frontier.fetched == {ROOT: "error:timeout"}


def test_max_pages_caps_the_crawl() -> None:
    site = {"/": page(*[f"/p{i}" for i in range(20)])}
    assert len(crawl(site, max_pages=5)) == 5


def test_in_flight_peak_is_counted() -> None:
    frontier = Frontier(CrawlConfig(root=ROOT))
    for _ in range(3):
        frontier.opened()
    frontier.closed()
    frontier.opened()
    # Connections only: a try is counted by on_response or on_error.
    assert (frontier.in_flight, frontier.peak_in_flight, frontier.tries) == (3, 3, 0)
