"""A model licence's own text, for the files that travel with a model (a bundle's LICENSE, the
ollama Modelfile's LICENSE block, the model card).

A licence often ships as the web page it was published on (Gemma's terms come as
GEMMA_TERMS.html, a saved ai.google.dev page: site menus, "Skip to main content", a language
list, "Manage cookies"). The terms are taken from that page by its structure, not by
patterns in its text: the page's ``<article>`` (inside ``<main>`` where there is one, else
``<main>`` or ``<body>``) from its first ``<h1>`` on, leaving out navigation, headers,
footers, buttons, forms, scripts and hidden elements (a note, ``<aside>``, within the terms stays); headings, paragraphs and list
items become lines, and a link keeps its address where it names another document. The page's
canonical address (``<link rel="canonical">``) is the source the notice names. Only the
standard library's :mod:`html.parser` is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
# what a page wraps around its content: never part of the terms
SKIP = {"nav", "header", "footer", "button", "script", "style", "noscript", "template", "form", "svg",
        "select", "iframe", "dialog", "menu"}
BLOCK = {"p", "div", "section", "ul", "ol", "li", "table", "tr", "dl", "dt", "dd", "blockquote", "pre", "br", "hr",
         "h1", "h2", "h3", "h4", "h5", "h6", "article", "main", "figure", "figcaption", "address", "aside"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
PARAGRAPHS = HEADINGS | {"p", "aside", "blockquote", "pre", "table"}  # set off by a blank line


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[_Node | str] = field(default_factory=list)

    def find(self, tag: str) -> _Node | None:
        for child in self.children:
            if isinstance(child, _Node):
                if child.tag == tag:
                    return child
                found = child.find(tag)
                if found is not None:
                    return found
        return None


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = _Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(_Node(tag, dict(attrs)))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):  # an end tag closes what it opened, and what was left open in it
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


@dataclass
class Terms:
    title: str | None
    text: str
    source: str | None  # the page's canonical address, where it names one


def _hidden(node: _Node) -> bool:
    return "hidden" in node.attrs or node.attrs.get("aria-hidden") == "true" or node.tag in SKIP


def terms_from_html(html: str) -> Terms:
    """The terms' own text from a saved web page (see the module's docstring)."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    root = builder.root
    source = None
    stack: list[_Node | str] = [root]
    while stack:  # <link rel="canonical" href="...">
        node = stack.pop()
        if isinstance(node, _Node):
            if node.tag == "link" and "canonical" in (node.attrs.get("rel") or "").split():
                source = node.attrs.get("href") or None
                break
            stack.extend(reversed(node.children))
    main = root.find("main")
    container = (main.find("article") if main else None) or root.find("article") or main or root.find("body") or root
    start = container.find("h1")
    out: list[str | int] = []  # text, or a line break between blocks (1: a new line, 2: a blank line)
    started = start is None
    title: list[str] = []

    def walk(node: _Node, in_pre: bool, in_title: bool) -> None:
        nonlocal started
        for child in node.children:
            if isinstance(child, str):
                if started:
                    text = child if in_pre else re.sub(r"\s+", " ", child)
                    out.append(text)
                    if in_title:
                        title.append(text)
                continue
            if _hidden(child):
                continue
            if child is start:
                started = True
            block = child.tag in BLOCK
            if started and block:
                out.append(2 if child.tag in PARAGRAPHS else 1)
                if child.tag == "li":
                    out.append("- ")
            walk(child, in_pre or child.tag == "pre", in_title or child is start)
            if started and child.tag == "a":
                href = (child.attrs.get("href") or "").strip()
                label = _text_of(child).strip()
                if href and not href.startswith(("#", "javascript:", "mailto:")):
                    url = urljoin(source or "", href)
                    if url.startswith(("http://", "https://")) and url != label:
                        out.append(f" ({url})")
            if started and block:
                out.append(2 if child.tag in PARAGRAPHS else 1)

    walk(container, False, False)
    pieces, pending = [], 0
    for item in out:  # adjacent breaks count once, as the strongest of them
        if isinstance(item, int):
            pending = max(pending, item)
        elif pending and item.strip():
            pieces += ["\n" * pending, item.lstrip(" ")]
            pending = 0
        elif not pending:
            pieces.append(item)
    text = "".join(pieces)
    text = "\n".join(re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines())
    text = re.sub(r" +([.,;:])", r"\1", text)  # "here ." where a link ended a sentence
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return Terms(title=re.sub(r"\s+", " ", "".join(title)).strip() or None, text=text, source=source)


def _text_of(node: _Node) -> str:
    return "".join(c if isinstance(c, str) else _text_of(c) for c in node.children)


def licence_notice(name: str | None, file: str | Path | None, url: str | None = None) -> str | None:
    """The text of a LICENSE file for a model under licence ``name``: its name, where the text
    comes from, and the text itself (an HTML page reduced to its terms). None without either."""
    if not name and not file:
        return None
    path = Path(file) if file else None
    head = [str(name)] if name else []
    body = ""
    if path is not None and path.is_file():
        raw = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix.lower() in (".html", ".htm"):
            terms = terms_from_html(raw)
            body = terms.text
            source = terms.source or url
            if terms.title and not name:
                head = [terms.title]
            head.append(f"Source: {source}, the terms as published there; text taken from {path.name}, the copy "
                        "shipped with the base model." if source else
                        f"Source: {path.name}, the copy shipped with the base model.")
        else:
            body = raw.strip()
            head.append(f"Source: {path.name}, shipped with the base model" + (f" ({url})." if url else "."))
    elif url:
        head.append(f"The terms: {url}")
    return "\n\n".join(p for p in ["\n".join(head), body] if p).strip() + "\n"
