#!/usr/bin/env python3
"""Checks the built DocC sites as a reader sees them.

Serves each module's site (.build/documentation/<Module>) at the root of a server of its own on
127.0.0.1, logging every request, and drives one headless Chromium over its DevTools pipe: every
page the site's data lists must render its title (not DocC's "page not found"), every image on it
must load, and every internal link must lead to a page of a built site. Any request the servers
answer with an error fails the check, as does a page whose scripts throw. Screenshots of each
module's landing page and of the SessionKit "Stages" article go to
.build/documentation-screenshots/.

Usage: Scripts/docs-check.py MODULE...
"""

import base64
import fcntl
import functools
import http.server
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
SITES = ROOT / ".build/documentation"
LOGS = ROOT / ".build/documentation-check"
SHOTS = ROOT / ".build/documentation-screenshots"
PAGE_TIMEOUT = 15.0
# Pages open at once, each in a tab of its own: one per core, rendering is what takes the time.
TABS = max(1, min(4, os.cpu_count() or 1))
# Pages whose screenshot is kept, besides each module's landing page.
SCREENSHOTS = {"SessionKit": ["documentation/sessionkit/thestages"]}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves one site and appends every request and its status to the site's log."""

    def __init__(self, *args, log, lock, **kwargs):
        self._log, self._lock = log, lock
        super().__init__(*args, **kwargs)

    def log_request(self, code="-", size="-"):
        with self._lock:
            self._log.write(f"{self.command} {self.path} {int(code) if isinstance(code, int) else code}\n")
            self._log.flush()

    def log_message(self, format, *args):
        pass


def serve(module):
    """Starts a server for one module's site on a free port; returns (server, log path)."""
    LOGS.mkdir(parents=True, exist_ok=True)
    path = LOGS / f"{module}.requests.log"
    log = open(path, "w")
    handler = functools.partial(Handler, directory=str(SITES / module), log=log, lock=threading.Lock())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, path


def pages(module):
    """The site's pages, from its render data: data/documentation/a/b.json is /documentation/a/b."""
    data = SITES / module / "data"
    found = []
    for json_file in sorted(data.rglob("*.json")):
        relative = json_file.relative_to(data).with_suffix("")
        found.append(relative.as_posix())
    return found


class Browser:
    """One headless Chromium, driven over --remote-debugging-pipe (file descriptors 3 and 4)."""

    def __init__(self):
        binary = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if not binary:
            sys.exit("docs: Chromium is missing: apt-get install chromium")
        self.profile = tempfile.mkdtemp(prefix="docs-check-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds():
            # Chromium reads its commands on fd 3 and writes its answers on fd 4; move the pipe ends
            # out of the way first, so neither is overwritten by the other's dup2.
            read_end = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             "--hide-scrollbars", "--remote-debugging-pipe",
             # The pages open side by side in tabs; none of them may be slowed as a background tab.
             "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
             "--disable-backgrounding-occluded-windows", f"--user-data-dir={self.profile}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(LOGS / "chromium.log", "w"),
            preexec_fn=child_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._buffer = b""
        self.events = []

    def send(self, method, params=None, session=None):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next_id

    def read(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe; see .build/documentation-check/chromium.log")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        wanted = self.send(method, params, session)
        while True:
            message = self.read()
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method, timeout, session=None):
        """Reads events until one named `method` arrives (from `session`); False after `timeout` s."""
        deadline = time.monotonic() + timeout
        matches = lambda event: event.get("method") == method and session in (None, event.get("sessionId"))
        if any(matches(event) for event in self.events):
            return True
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self._from_browser], [], [], max(0.0, deadline - time.monotonic()))
            if not ready and b"\0" not in self._buffer:
                break
            message = self.read()
            self.events.append(message)
            if matches(message):
                return True
        return False

    def close(self):
        try:
            self.send("Browser.close")
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


# Opens a page the way a reader following a link does (through the site's own router, so the
# page's data is fetched and rendered by DocC's scripts), waits until its title is the expected
# one and its images have loaded, and reports what a reader sees: the title, the images and their
# state, and the page's links. `path` null: the page is already loaded.
PAGE_REPORT = r"""
(async (path, title, timeout) => {
  const started = Date.now();
  const pause = () => new Promise(resolve => setTimeout(resolve, 20));
  if (path !== null) {
    const app = [...document.querySelectorAll('body *')].find(element => element.__vue__);
    if (!app) return {error: 'DocC did not start (no application on the page)'};
    await app.__vue__.$root.$router.push(path).catch(error => error);
  }
  const heading = () => document.querySelector('main h1');
  while (!(heading() && heading().textContent.trim() === title) && Date.now() - started < timeout) await pause();
  const images = () => [...document.querySelectorAll('main img')];
  images().forEach(image => { image.loading = 'eager'; });
  while (images().some(image => !image.complete) && Date.now() - started < timeout) await pause();
  return {
    title: heading() ? heading().textContent.trim() : null,
    notFound: !!document.querySelector('.generic-error'),
    images: images().map(image => ({src: image.currentSrc || image.src, ok: image.complete && image.naturalWidth > 0})),
    links: [...document.querySelectorAll('main a[href]')].map(a => a.href),
  };
})(%s, %s, %d)
"""


def title_of(module, page):
    """The title DocC shows on a page, from the page's render data."""
    with open(SITES / module / "data" / f"{page}.json") as handle:
        return json.load(handle).get("metadata", {}).get("title")


class Checker:
    def __init__(self, browser, origins, known):
        self.browser, self.origins, self.known = browser, origins, known
        self.problems = []
        self.links = set()

    def new_tab(self):
        """A page of the browser, 1280 pixels wide, with its events on."""
        target = self.browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.browser.call("Page.enable", session=session)
        self.browser.call("Runtime.enable", session=session)
        self.browser.call("Emulation.setDeviceMetricsOverride",
                          {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        return session

    def expression(self, page, title, full_load):
        return PAGE_REPORT % ("null" if full_load else json.dumps("/" + page), json.dumps(title), PAGE_TIMEOUT * 1000)

    def load(self, session, module, page, title):
        """Opens one page with a full load, as a reader arriving from elsewhere does."""
        url = f"{self.origins[module]}/{page}"
        self.browser.events.clear()
        self.browser.call("Page.navigate", {"url": url}, session=session)
        if not self.browser.wait_for("Page.loadEventFired", PAGE_TIMEOUT, session=session):
            self.problems.append(f"{url}: did not load within {PAGE_TIMEOUT:.0f} s")
            return False
        result = self.browser.call("Runtime.evaluate", {"expression": self.expression(page, title, True),
                                                        "awaitPromise": True, "returnByValue": True}, session=session)
        for event in self.browser.events:
            self.exception(event, url)
        self.record(url, title, result)
        return True

    def follow(self, sessions, module, pages):
        """Opens pages through the site's router, one at a time in each of `sessions` (tabs that
        show the module's site), and records what is wrong with each."""
        queue = list(pages)
        in_flight = {}
        showing = {}

        def dispatch(session):
            page = queue.pop(0)
            title = title_of(module, page)
            url = f"{self.origins[module]}/{page}"
            request = self.browser.send("Runtime.evaluate", {"expression": self.expression(page, title, False),
                                                            "awaitPromise": True, "returnByValue": True}, session)
            in_flight[request] = (session, url, title)
            showing[session] = url

        for session in sessions:
            if queue:
                dispatch(session)
        while in_flight:
            message = self.browser.read()
            if message.get("id") in in_flight:
                session, url, title = in_flight.pop(message["id"])
                self.record(url, title, message.get("result", {"exceptionDetails": message.get("error")}))
                if queue:
                    dispatch(session)
            else:
                self.exception(message, showing.get(message.get("sessionId"), "?"))

    def exception(self, event, url):
        if event.get("method") == "Runtime.exceptionThrown":
            details = event["params"]["exceptionDetails"]
            thrown = details.get("exception", {}).get("description", details.get("text"))
            self.problems.append(f"{url}: script error: {thrown}")

    def record(self, url, title, result):
        seen = result.get("result", {}).get("value") or {"error": str(result.get("exceptionDetails"))}
        if seen.get("error"):
            self.problems.append(f"{url}: {seen['error']}")
        elif seen.get("notFound"):
            self.problems.append(f"{url}: DocC shows its page-not-found view")
        elif seen.get("title") != title:
            self.problems.append(f"{url}: shows the title {seen.get('title')!r}, not {title!r}")
        for image in seen.get("images", []):
            if not image["ok"]:
                self.problems.append(f"{url}: image does not load: {image['src']}")
        self.links.update((url, link) for link in seen.get("links", []))

    def screenshot(self, session, name):
        height = self.browser.call("Runtime.evaluate", {
            "expression": "Math.min(document.documentElement.scrollHeight, 8000)", "returnByValue": True},
            session=session)["result"]["value"]
        shot = self.browser.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1}}, session=session)
        (SHOTS / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))

    def check_links(self):
        """Every link to one of the served sites leads to a page of that site."""
        for page_url, link in sorted(self.links):
            parsed = urllib.parse.urlsplit(link)
            origin = f"{parsed.scheme}://{parsed.netloc}"
            if origin not in self.origins.values():
                continue
            path = urllib.parse.unquote(parsed.path).rstrip("/").lower()
            if path.endswith("/index.html"):
                path = path[: -len("/index.html")]
            if (origin, path) not in self.known:
                self.problems.append(f"{page_url}: internal link leads nowhere: {link}")


def check():
    modules = sys.argv[1:]
    started = time.monotonic()
    servers = {module: serve(module) for module in modules}
    origins = {module: f"http://127.0.0.1:{server.server_address[1]}" for module, (server, _) in servers.items()}
    all_pages = {module: pages(module) for module in modules}
    known = {(origins[module], "/" + page.lower()) for module in modules for page in all_pages[module]}
    browser = Browser()
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        checker = Checker(browser, origins, known)
        tabs = [checker.new_tab() for _ in range(TABS)]
        for module in modules:
            if not all_pages[module]:
                checker.problems.append(f"{module}: the site has no pages")
                continue
            landing = min(all_pages[module], key=lambda page: page.count("/"))
            # The landing page with a full load in every tab, as a reader arriving from elsewhere
            # sees it ...
            if not all([checker.load(tab, module, landing, title_of(module, landing)) for tab in tabs]):
                continue
            checker.screenshot(tabs[0], module)
            # ... and the pages kept as pictures with a full load of their own ...
            for page in SCREENSHOTS.get(module, []):
                if checker.load(tabs[0], module, page, title_of(module, page)):
                    checker.screenshot(tabs[0], f"{module}-{page.rsplit('/', 1)[-1]}")
            # ... then every page through the site's own navigation.
            checker.follow(tabs, module, [page for page in all_pages[module] if page != landing])
        checker.check_links()
    finally:
        browser.close()
        for server, _ in servers.values():
            server.shutdown()
    problems = checker.problems
    for module, (_, log) in servers.items():
        for line in log.read_text().splitlines():
            status = line.rsplit(" ", 1)[-1]
            if status.isdigit() and int(status) >= 400:
                problems.append(f"{module}: the server answered {line}")
    for problem in problems:
        print(f"docs: {problem}", file=sys.stderr)
    counted = ", ".join(f"{module} {len(all_pages[module])}" for module in modules)
    if problems:
        print(f"docs: the browser check found {len(problems)} problems", file=sys.stderr)
        return 1
    print(f"docs: every page rendered in headless Chromium ({counted}), every image and internal link "
          f"resolved, no failed request; screenshots in {SHOTS.relative_to(ROOT)} "
          f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(check())
