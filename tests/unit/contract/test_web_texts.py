"""The web client's texts as data (issue 44): ``static/i18n/en.json`` and ``de.json`` name the same keys with the
same ``{placeholders}``, and every key the client asks for (``t("…")`` and ``tNodes("…")`` in its modules,
``data-i18n…`` attributes in its pages) is one of them, so no reader meets a bare key or an unfilled
placeholder in either language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[3] / "services" / "gateway" / "static"
LANGUAGES = ("en", "de")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A call with a literal key: t("lobby.title"), tNodes("game.you_play", {...}); a key built at run time
# (t(`clock.${x}`)) is not one the test can read, and the client writes none.
CALL = re.compile(r"""\b(?:t|tNodes)\(\s*["']([^"']+)["']""")
ATTRIBUTE = re.compile(r"""\bdata-i18n(?:-title|-aria-label|-placeholder)?="([^"]+)\"""")


def texts(language: str) -> dict[str, str]:
    loaded = json.loads((STATIC / "i18n" / f"{language}.json").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def used_keys() -> dict[str, str]:
    """Each key the client uses, with one file that uses it."""
    found: dict[str, str] = {}
    for path in sorted(STATIC.rglob("*.js")):
        for key in CALL.findall(path.read_text(encoding="utf-8")):
            found.setdefault(key, str(path.relative_to(STATIC)))
    for path in sorted(STATIC.glob("*.html")):
        for key in ATTRIBUTE.findall(path.read_text(encoding="utf-8")):
            found.setdefault(key, str(path.relative_to(STATIC)))
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_text_is_a_non_empty_string(language: str) -> None:
    bad = [key for key, text in texts(language).items() if not isinstance(text, str) or not text.strip()]
    assert not bad, f"{language}.json: empty or not text: {bad}"


def test_both_languages_name_the_same_keys() -> None:
    english, german = texts("en"), texts("de")
    assert sorted(set(english) - set(german)) == [], "in en.json only"
    assert sorted(set(german) - set(english)) == [], "in de.json only"


def test_both_languages_fill_the_same_placeholders() -> None:
    english, german = texts("en"), texts("de")
    differ = {
        key: (sorted(set(PLACEHOLDER.findall(text))), sorted(set(PLACEHOLDER.findall(german[key]))))
        for key, text in english.items()
        if key in german and set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(german[key]))
    }
    assert not differ, f"placeholders differ (en, de): {differ}"


def test_every_key_the_client_uses_is_in_english() -> None:
    english = texts("en")
    used = used_keys()
    assert len(used) > 50, "the pattern no longer finds the client's keys"
    missing = {key: where for key, where in used.items() if key not in english}
    assert not missing, f"keys used but not in en.json: {missing}"


def test_the_pages_load_the_texts_before_drawing() -> None:
    # Each page loads js/i18n.js itself (it translates the page's HTML and adds the language switch) and
    # starts hidden until it has (the class i18n.js takes away).
    for page in sorted(STATIC.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        assert '<script type="module" src="/static/js/i18n.js"></script>' in html, page.name
        assert 'class="i18n-wait"' in html, page.name
