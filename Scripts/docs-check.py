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
# Pages whose screenshot is kept, besides each module's landing page.
SCREENSHOTS = {"SessionKit": ["documentation/sessionkit/thestages"]}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves one site and appends every request and its status to the site's log."""

    def __init__(self, *args, log, lock, **kwargs):
        self._log, self._lock = log, lock
        super().__init__(*args, **kwargs)

    def log_request(self, code="-", size="-"):
        with self._lock:
            self._log.write(f"{self.command} {self.path} {int(code) if str(code).isdigit() else code}\n")
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
        found.append(relative.as_posix().lower())
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
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(LOGS / "chromium.log", "w"),
            preexec_fn=child_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._buffer = b""
        self.events = []

    def _send(self, method, params=None, session=None):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe; see .build/documentation-check/chromium.log")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        wanted = self._send(method, params, session)
        while True:
            message = self._read()
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method, timeout):
        """Reads events until one named `method` arrives; False after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return True
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self._from_browser], [], [], max(0.0, deadline - time.monotonic()))
            if not ready and b"\0" not in self._buffer:
                break
            message = self._read()
            self.events.append(message)
            if message.get("method") == method:
                return True
        return False

    def close(self):
        try:
            self._send("Browser.close")
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


# Waits until DocC has rendered the page (its title, or its not-found view), then reports what a
# reader would see: the title, whether DocC said the page is missing, the images and their state,
# and the page's internal links.
PAGE_REPORT = r"""
new Promise(resolve => {
  const started = Date.now();
  const report = () => {
    const main = document.querySelector('main');
    const title = document.querySelector('main h1');
    const missing = !!document.querySelector('.generic-error, .error-content, [class*="not-found"]');
    if (!(title || missing) && Date.now() - started < %d) return setTimeout(report, 50);
    const images = [...document.querySelectorAll('main img')];
    const pending = images.filter(image => !image.complete);
    if (pending.length && Date.now() - started < %d) {
      images.forEach(image => { image.loading = 'eager'; });
      return setTimeout(report, 50);
    }
    resolve({
      title: title ? title.textContent.trim() : null,
      missing,
      text: main ? main.innerText.length : 0,
      images: images.map(image => ({src: image.currentSrc || image.src, ok: image.complete && image.naturalWidth > 0})),
      links: [...document.querySelectorAll('main a[href]')].map(a => a.href),
    });
  };
  report();
})
"""


def check():
    modules = sys.argv[1:]
    started = time.monotonic()
    servers = {module: serve(module) for module in modules}
    origins = {module: f"http://127.0.0.1:{server.server_address[1]}" for module, (server, _) in servers.items()}
    all_pages = {module: pages(module) for module in modules}
    known = {(origins[module], "/" + page) for module in modules for page in all_pages[module]}
    problems = []
    browser = Browser()
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.call("Page.enable", session=session)
        browser.call("Runtime.enable", session=session)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        SHOTS.mkdir(parents=True, exist_ok=True)
        for module in modules:
            landing = all_pages[module][0] if all_pages[module] else None
            for page in all_pages[module]:
                if page.count("/") < landing.count("/"):
                    landing = page
            links = set()
            for page in all_pages[module]:
                url = f"{origins[module]}/{page}"
                browser.events.clear()
                browser.call("Page.navigate", {"url": url}, session=session)
                if not browser.wait_for("Page.loadEventFired", PAGE_TIMEOUT):
                    problems.append(f"{url}: did not load within {PAGE_TIMEOUT:.0f} s")
                    continue
                expression = PAGE_REPORT % (PAGE_TIMEOUT * 1000, PAGE_TIMEOUT * 1000)
                result = browser.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                           "returnByValue": True}, session=session)
                seen = result.get("result", {}).get("value") or {}
                for event in browser.events:
                    if event.get("method") == "Runtime.exceptionThrown":
                        details = event["params"]["exceptionDetails"]
                        problems.append(f"{url}: script error: {details.get('exception', {}).get('description', details.get('text'))}")
                if seen.get("missing") or not seen.get("title"):
                    problems.append(f"{url}: does not render (DocC shows {'page not found' if seen.get('missing') else 'no title'})")
                for image in seen.get("images", []):
                    if not image["ok"]:
                        problems.append(f"{url}: image does not load: {image['src']}")
                links.update((url, link) for link in seen.get("links", []))
                if page == landing or page in SCREENSHOTS.get(module, []):
                    name = module if page == landing else f"{module}-{page.rsplit('/', 1)[-1]}"
                    height = browser.call("Runtime.evaluate", {
                        "expression": "Math.min(document.documentElement.scrollHeight, 6000)", "returnByValue": True},
                        session=session)["result"]["value"]
                    shot = browser.call("Page.captureScreenshot", {
                        "format": "png", "captureBeyondViewport": True,
                        "clip": {"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1}}, session=session)
                    (SHOTS / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))
            for page_url, link in sorted(links):
                parsed = urllib.parse.urlsplit(link)
                origin = f"{parsed.scheme}://{parsed.netloc}"
                if origin not in origins.values():
                    continue
                path = urllib.parse.unquote(parsed.path).rstrip("/").lower()
                if path.endswith("/index.html"):
                    path = path[: -len("/index.html")]
                if (origin, path) not in known:
                    problems.append(f"{page_url}: internal link leads nowhere: {link}")
    finally:
        browser.close()
        for server, _ in servers.values():
            server.shutdown()
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
    print(f"docs: every page rendered in headless Chromium ({counted}), no failed request, "
          f"screenshots in {SHOTS.relative_to(ROOT)} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(check())
