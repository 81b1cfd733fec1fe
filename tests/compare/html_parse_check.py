#!/usr/bin/env python3
"""Parses an HTML report with Python's html.parser and checks it (issue 16):
  - well formed: every element closed in order (void elements excepted), no <script>, no stray
    end tag, nothing left open at the end;
  - every name in NAMES (one per line) appears in the page's text (entities decoded);
  - the file is at most --max-mb MB.
Prints "ok: N names found, S MB" and exits 0, or prints what is wrong and exits 1. Driven by
tests/compare/test_render_large.cpp.

    python3 html_parse_check.py REPORT.html NAMES.txt [--max-mb 20]
"""
import argparse
import os
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.errors.append("contains a <script>")
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        pass  # <line .../> in SVG: opened and closed

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            top = self.stack[-1] if self.stack else ("nothing", (0, 0))
            self.errors.append("</%s> at line %d closes <%s> (opened at line %d)"
                               % (tag, self.getpos()[0], top[0], top[1][0]))
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html")
    ap.add_argument("names")
    ap.add_argument("--max-mb", type=float, default=20.0)
    args = ap.parse_args()
    size_mb = os.path.getsize(args.html) / 1e6
    with open(args.html, encoding="utf-8") as f:
        doc = f.read()
    checker = Checker()
    checker.feed(doc)
    checker.close()
    problems = checker.errors[:10]
    if checker.stack:
        problems.append("<%s> opened at line %d never closed" % (checker.stack[-1][0],
                                                                 checker.stack[-1][1][0]))
    if size_mb > args.max_mb:
        problems.append("%.1f MB is over %.1f MB" % (size_mb, args.max_mb))
    text = "".join(checker.text)
    with open(args.names, encoding="utf-8") as f:
        names = [line.rstrip("\n") for line in f if line.strip()]
    # Words and whole text nodes first (a set: 200,000 names against 20 MB of text stays fast),
    # then a plain search for the rest.
    words = set(text.split())
    words.update(chunk.strip() for chunk in checker.text)
    missing = [n for n in names if n not in words and n not in text]
    if missing:
        problems.append("%d of %d names not in the text, e.g. %r" % (len(missing), len(names),
                                                                     missing[:3]))
    if not names:
        problems.append("no names given: nothing was checked")
    if problems:
        print("\n".join(problems))
        return 1
    print("ok: %d names found, %.1f MB" % (len(names), size_mb))
    return 0


if __name__ == "__main__":
    sys.exit(main())
