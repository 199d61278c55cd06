"""A licence shipped as a saved web page carries its terms, not the page: the text is taken by
the page's structure (main > article from its h1, no nav, header, footer, buttons or hidden
parts), checked on a page built like Gemma's and on the file the model package ships."""

from __future__ import annotations

import pytest

from workbench.core.licence_text import licence_notice, terms_from_html

# built like the saved ai.google.dev page: menus, a language list, a banner and breadcrumbs
# around the article, buttons and hidden actions in it, cookie notices after it
PAGE = """<!doctype html><html lang="en"><head><title>Gemma Terms of Use | Google AI for Developers</title>
<link rel="canonical" href="https://ai.example.dev/gemma/terms"><style>body{color:red}</style>
<script>var menu = "Skip to main content";</script></head>
<body><a class="skip" href="#main-content">Skip to main content</a>
<header><nav><ul><li><a href="/models">Models</a></li><li><a href="/gemini">Gemini</a></li>
<li><a href="/pricing">Pricing</a></li></ul></nav>
<select><option>English</option><option>中文 – 简体</option><option>Deutsch</option></select></header>
<nav class="side"><a href="/gemma/docs">Docs</a></nav>
<main id="main-content"><article class="devsite-article">
<div class="banner">FunctionGemma released! <a href="/news">Learn more</a></div>
<nav class="breadcrumbs"><a href="/">Home</a> &gt; <a href="/gemma">Gemma</a></nav>
<button>Send feedback</button>
<h1 class="title">Gemma Terms of Use<span hidden>Copy link</span></h1>
<div class="body"><p>Last modified: March 24, 2025</p>
<p>By using Gemma you agree to <b>this</b>
   Agreement &amp; its &quot;terms&quot;.</p>
<h2>Section 1: DEFINITIONS</h2>
<p>(a) &quot;Gemma&quot; means the models in the <a href="#appendix">Appendix</a>.</p>
<ul><li>for the uses in the <a href="/gemma/prohibited_use_policy">Prohibited Use Policy</a>; or</li>
<li>to break the law.</li></ul>
<h2 id="appendix">Appendix</h2><ul><li><a href="https://ai.example.dev/gemma/3">Gemma 3</a></li></ul>
<aside class="note"><strong>Note:</strong> Older terms are <a href="/gemma/terms-archive">archived here</a>.</aside>
<div aria-hidden="true">Was this helpful?</div></div>
<button>Send feedback</button></article></main>
<footer><a href="/cookies">Manage cookies</a> <a href="/terms">Terms</a> <a href="/privacy">Privacy</a></footer>
</body></html>"""

WANT = """Gemma Terms of Use

Last modified: March 24, 2025

By using Gemma you agree to this Agreement & its "terms".

Section 1: DEFINITIONS

(a) "Gemma" means the models in the Appendix.

- for the uses in the Prohibited Use Policy (https://ai.example.dev/gemma/prohibited_use_policy); or
- to break the law.

Appendix

- Gemma 3 (https://ai.example.dev/gemma/3)

Note: Older terms are archived here (https://ai.example.dev/gemma/terms-archive)."""


def test_the_terms_are_the_article_not_the_page():
    terms = terms_from_html(PAGE)
    assert terms.title == "Gemma Terms of Use" and terms.source == "https://ai.example.dev/gemma/terms"
    assert terms.text == WANT


def test_the_notice_names_the_licence_and_its_source(tmp_path):
    page = tmp_path / "TERMS.html"
    page.write_text(PAGE, encoding="utf-8")
    text = licence_notice("Gemma Terms of Use", page)
    head, body = text.split("\n\n", 1)
    assert head == ("Gemma Terms of Use\nSource: https://ai.example.dev/gemma/terms, the terms as published there; "
                    "text taken from TERMS.html, the copy shipped with the base model.")
    assert body.strip() == WANT
    plain = tmp_path / "LICENSE.txt"
    plain.write_text("Apache License\nVersion 2.0\n", encoding="utf-8")
    assert licence_notice("apache-2.0", plain, "https://www.apache.org/licenses/LICENSE-2.0") == (
        "apache-2.0\nSource: LICENSE.txt, shipped with the base model (https://www.apache.org/licenses/LICENSE-2.0)."
        "\n\nApache License\nVersion 2.0\n")
    assert licence_notice(None, None) is None


def test_the_gemma_package_file_gives_its_terms():
    """The file the registered Gemma's package ships (GEMMA_TERMS.html, a saved web page)."""
    from workbench.core.operations.models import REGISTRY, installed_licence_file

    path = installed_licence_file(REGISTRY["gemma-3-270m"])
    if path is None:
        pytest.skip("the Gemma 3 270M package is not installed")
    raw = path.read_text(encoding="utf-8")
    assert "Skip to main content" in raw and "Manage cookies" in raw  # the page as saved
    terms = terms_from_html(raw)
    assert terms.title == "Gemma Terms of Use" and terms.source == "https://ai.google.dev/gemma/terms"
    assert terms.text.startswith("Gemma Terms of Use\n\nLast modified: ")
    for heading in ("Section 1: DEFINITIONS", "Section 2: ELIGIBILITY AND USAGE", "3.2 Use Restrictions",
                    "Section 4: ADDITIONAL PROVISIONS", "4.9 No Waiver", "Appendix"):
        assert f"\n\n{heading}\n\n" in terms.text, heading
    assert "ai.google.dev/gemma/prohibited_use_policy" in terms.text
    for chrome in ("Skip to main content", "Manage cookies", "Pricing", "Send feedback", "Gemini", "English",
                   "Google AI for Developers", "Was this helpful"):
        assert chrome not in terms.text, chrome
    assert 8_000 < len(terms.text) < 14_000  # the terms, not the 168 KB page
