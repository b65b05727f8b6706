#!/usr/bin/env python3
"""The report in a real browser: writes waveopt-report's report over SHADERS,
loads the index and every module page from disk in headless Chromium, and
checks the DOM as the browser built it (its script ran; every applied remark
has a cost and a verdict, and a waveopt pass's the cost of its rewrite alone;
every link resolves to a file of the report and an
id on it; no external URL), that report.json and report.sarif hold the same
remarks as the pages, and that a screenshot of the index is not blank. Then
the cache: a second run reuses every module, and after one input changes,
redoes only that one (with --no-proof --no-isa, to stay cheap).

  check_report.py --bin BUILD/bin [--chromium PATH] [--screenshot OUT.png] SHADER...

Exit 0 when every check passes; each failure is one line.
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

PASSES = ("batch-uniform-loads", "prereduce-atomics", "morton-remap", "quad-exchange",
          "workgroup-reduce")
HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "..", "tools", "report", "waveopt_report.py")


class Dom(html.parser.HTMLParser):
    """The elements the checks need: ids, links, external URLs, remarks."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.urls, self.remarks = set(), [], [], []
        self.body = {}
        self.stack = []  # open remark divs: [classes, has cost, verdict]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "body":
            self.body = a
        for key in ("href", "src", "action", "data", "poster"):
            if a.get(key):
                self.urls.append(a[key])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag == "div" and "remark" in cls:
            self.remarks.append({"classes": cls, "cost": None, "verdict": None, "alone": None,
                                 "pass": a.get("data-pass", "")})
            self.stack.append(len(self.remarks) - 1)
        elif tag == "div":
            self.stack.append(None)
        if self.stack and self.stack[-1] is not None:
            r = self.remarks[self.stack[-1]]
            if "cost" in cls:
                field = "alone" if "alone" in cls else "cost"
                r[field] = ""
                self.capture = (r, field)
            if "verdict" in cls:
                r["verdict"] = [c for c in cls if c.startswith("v-")]
        if tag in ("link", "script", "img", "iframe") and (a.get("src") or a.get("href")):
            self.urls.append(a.get("src") or a.get("href"))

    def handle_endtag(self, tag):
        if tag == "div" and self.stack:
            self.stack.pop()
        if tag == "span":
            self.capture = None

    def handle_data(self, data):
        cap = getattr(self, "capture", None)
        if cap:
            cap[0][cap[1]] += data


def check_dom(dom_text, page_path, report_dir, ids_of):
    """Problems of one page's DOM, one line each."""
    d = Dom()
    d.feed(dom_text)
    name = os.path.relpath(page_path, report_dir)
    errors = []
    if d.body.get("data-js") != "ready":
        errors.append("%s: the page's script did not run to its end" % name)
    for url in d.urls:
        if re.match(r"^[a-z][a-z0-9+.-]*:|^//", url, re.I):
            errors.append("%s: external URL %s" % (name, url))
    for href in d.links:
        errors += check_link(href, page_path, report_dir, ids_of, name)
    for r in d.remarks:
        if "applied" not in r["classes"]:
            continue
        if not r["cost"] or "not measured" in r["cost"]:
            errors.append("%s: an applied remark has no cost" % name)
        if not r["verdict"]:
            errors.append("%s: an applied remark has no verdict" % name)
        if r["pass"] in PASSES and not alone_measured(r["alone"]):
            errors.append("%s: an applied %s remark has no cost of its rewrite alone (%s)"
                          % (name, r["pass"], (r["alone"] or "none").strip()))
    return errors, d


def alone_measured(text):
    """A rewrite's own cost line has numbers per target, or says why it has none
    (it happens only together with other rewrites)."""
    return bool(text) and ("→" in text or "only together with others" in text)


def check_link(href, page_path, report_dir, ids_of, name):
    url = urllib.parse.urlparse(href)
    if url.scheme or url.netloc:
        return []  # reported as external above
    target = os.path.normpath(os.path.join(os.path.dirname(page_path), urllib.parse.unquote(url.path))) \
        if url.path else page_path
    if not os.path.isfile(target):
        return ["%s: link %s: no such file" % (name, href)]
    if not target.startswith(os.path.abspath(report_dir)):
        return ["%s: link %s leaves the report" % (name, href)]
    if url.fragment and url.fragment not in ids_of(target):
        return ["%s: link %s: no id '%s' there" % (name, href, url.fragment)]
    return []


def static_ids(path):
    d = Dom()
    with open(path, errors="replace") as f:
        d.feed(f.read())
    return d.ids


def chromium(browser, args, url):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--user-data-dir=" + tempfile.mkdtemp(prefix="chromium.")] + args + [url]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       universal_newlines=True, timeout=120)
    shutil.rmtree(cmd[5].split("=", 1)[1], ignore_errors=True)
    if p.returncode != 0:
        sys.exit("check_report: chromium failed (exit %d) on %s" % (p.returncode, url))
    return p.stdout


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[:4]
    assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        unfilter(ftype, line, prev, bpp)
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def unfilter(ftype, line, prev, bpp):
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if ftype == 1:
            line[i] = (line[i] + a) & 255
        elif ftype == 2:
            line[i] = (line[i] + b) & 255
        elif ftype == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif ftype == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255


def blank(path):
    """Why the screenshot is blank, or ''."""
    w, h, bpp, rows = png_pixels(path)
    colors, ink = set(), 0
    for row in rows[::4]:
        for x in range(0, w * bpp, bpp * 4):
            px = bytes(row[x:x + 3])
            colors.add(px)
            ink += px != b"\xff\xff\xff"
    samples = len(rows[::4]) * len(range(0, w * bpp, bpp * 4))
    if len(colors) < 8 or ink < samples // 100:
        return "%d colours, %d of %d sampled pixels not white" % (len(colors), ink, samples)
    return ""


def report(args, shaders, out, extra=()):
    cmd = [sys.executable, REPORT, "--bin", args.bin, "-o", out, "-j", "2"] + list(extra) + shaders
    p = subprocess.run(cmd, stdout=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        sys.exit("check_report: waveopt-report failed (exit %d)" % p.returncode)
    m = re.search(r"; (\d+) reused\)", p.stdout)
    return int(m.group(1))


def check_browser(args, out):
    """DOM checks of the index and every module page, as Chromium built them."""
    errors, remark_count = [], 0
    pages = [os.path.join(out, "index.html")] + sorted(
        os.path.join(out, "modules", p) for p in os.listdir(os.path.join(out, "modules")))
    for page in pages:
        dom = chromium(args.chromium, ["--dump-dom"], "file://" + urllib.parse.quote(os.path.abspath(page)))
        errs, d = check_dom(dom, os.path.abspath(page), os.path.abspath(out), static_ids)
        errors += errs
        remark_count += sum(1 for r in d.remarks if {"applied", "missed"} & set(r["classes"]))
        applied = sum(1 for r in d.remarks if "applied" in r["classes"])
        if page.endswith(".html") and "modules" in page and applied == 0:
            print("note: %s has no applied remark" % os.path.relpath(page, out))
    with open(os.path.join(out, "report.json")) as f:
        data = json.load(f)
    in_json = sum(1 for m in data["modules"] for r in m.get("remarks", []) if r["kind"] != "analysis")
    with open(os.path.join(out, "report.sarif")) as f:
        in_sarif = len(json.load(f)["runs"][0]["results"])
    if not remark_count or remark_count != in_json or in_json != in_sarif:
        errors.append("remarks: %d on the pages, %d in report.json, %d in report.sarif" %
                      (remark_count, in_json, in_sarif))
    return errors, remark_count, len(pages)


def negative_control():
    """The DOM check must catch a page with each fault it looks for."""
    bad = ('<body data-js="ready"><a href="https://example.invalid/x">x</a><a href="gone.html">y</a>'
           '<div class="remark applied">no cost<span class="verdict">?</span></div>'
           '<div class="remark applied" data-pass="prereduce-atomics"><span class="cost">a→b</span>'
           '<span class="cost alone">not measured</span><span class="verdict v-equal">e</span></div>'
           '</body>')
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "index.html")
        open(page, "w").close()
        errors, _ = check_dom(bad, page, d, static_ids)
    wanted = ("external URL", "no such file", "has no cost", "has no verdict",
              "no cost of its rewrite alone")
    missing = [w for w in wanted if not any(w in e for e in errors)]
    if missing:
        sys.exit("check_report: the negative control was not caught: %s" % ", ".join(missing))


def check_cache(args, shaders):
    """A second run reuses every module; with one input changed it redoes that one."""
    with tempfile.TemporaryDirectory(prefix="report-cache.") as d:
        copies = []
        for i, s in enumerate(shaders):
            copies.append(os.path.join(d, "%d-%s" % (i, os.path.basename(s))))
            shutil.copyfile(s, copies[-1])
        out, quick = os.path.join(d, "out"), ["--no-proof", "--no-isa"]
        first, second = report(args, copies, out, quick), report(args, copies, out, quick)
        with open(copies[0], "a") as f:
            f.write("\n// changed\n")
        third = report(args, copies, out, quick)
    n = len(copies)
    if (first, second, third) != (0, n, n - 1):
        return ["cache: reused %d, %d, %d modules; expected 0, %d, %d" % (first, second, third, n, n - 1)]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--screenshot", help="also keep the index's screenshot here")
    ap.add_argument("--keep", help="write the report here instead of a temporary directory")
    ap.add_argument("shaders", nargs="+")
    args = ap.parse_args()
    negative_control()
    tmp = tempfile.mkdtemp(prefix="report-test.")
    out = args.keep or os.path.join(tmp, "report")
    try:
        report(args, args.shaders, out)
        errors, remarks, pages = check_browser(args, out)
        shot = args.screenshot or os.path.join(tmp, "index.png")
        chromium(args.chromium, ["--screenshot=" + os.path.abspath(shot), "--window-size=1280,900",
                                 "--hide-scrollbars"], "file://" + os.path.abspath(os.path.join(out, "index.html")))
        why = blank(shot)
        if why:
            errors.append("screenshot of the index is blank: " + why)
        errors += check_cache(args, args.shaders)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for e in errors:
        print("FAIL: " + e)
    if errors:
        return 1
    print("report checked in Chromium: %d pages, %d remarks, links, cost and verdicts; cache reuse" % (pages, remarks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
