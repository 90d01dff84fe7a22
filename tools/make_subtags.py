"""Write ``feedmap/_validate/_subtags.py``: the ISO 639-1 languages and ISO 3166-1 alpha-2 regions hreflang names.

Run once when the code lists change (rarely: ISO 3166-1 last gained a code in 2011, ISO 639-1 in 2009)::

    python tools/make_subtags.py [ISO_CODES_JSON_FOLDER]    # default: /usr/share/iso-codes/json

The source is Debian's iso-codes (https://salsa.debian.org/iso-codes-team/iso-codes, ``apt-get install
iso-codes``; LGPL-2.1-or-later), which follows the ISO 639 and ISO 3166 maintenance agencies: its
``iso_639-2.json`` (the ``alpha_2`` of a language is its ISO 639-1 code; ``alpha_3`` and ``bibliographic``
its ISO 639-2 codes) and ``iso_3166-1.json``.  Only the codes are taken, no names or translations.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "feedmap" / "_validate" / "_subtags.py"


def _version(folder: Path) -> str:
    """The iso-codes version, from its Debian package record when it is one."""
    status = Path("/var/lib/dpkg/status")
    if folder == Path("/usr/share/iso-codes/json") and status.is_file():
        record = status.read_text(encoding="utf-8").partition("Package: iso-codes\n")[2].partition("\n\n")[0]
        for line in record.splitlines():
            if line.startswith("Version: "):
                return line.removeprefix("Version: ")
    return "unknown"


def _words(codes: list[str], indent: str = "    ") -> str:
    return "\n".join(textwrap.wrap(" ".join(codes), 110, initial_indent=indent, subsequent_indent=indent))


def main(folder: Path) -> None:
    languages = json.loads((folder / "iso_639-2.json").read_text(encoding="utf-8"))["639-2"]
    regions = json.loads((folder / "iso_3166-1.json").read_text(encoding="utf-8"))["3166-1"]
    alpha2 = sorted({one["alpha_2"] for one in languages if "alpha_2" in one})
    alpha3 = sorted(
        f"{three}:{one['alpha_2']}"
        for one in languages
        if "alpha_2" in one
        for three in {one["alpha_3"], one.get("bibliographic", one["alpha_3"])}
    )
    countries = sorted(one["alpha_2"] for one in regions)
    text = f'''"""The ISO 639-1 languages and ISO 3166-1 alpha-2 regions hreflang values name (generated: do not edit).

Made by ``tools/make_subtags.py`` from Debian's iso-codes {_version(folder)} (https://salsa.debian.org/iso-codes-team/
iso-codes, LGPL-2.1-or-later), which follows the ISO 639 and ISO 3166 maintenance agencies; only the codes are
taken (no names or translations).  Google's localized versions
(https://developers.google.com/search/docs/specialty/international/localized-versions) read an hreflang's language
as ISO 639-1 and its region as ISO 3166-1 alpha-2.
"""

from __future__ import annotations

__all__ = ["ISO_639_1", "ISO_639_2_TO_1", "ISO_3166_1"]

_LANGUAGES = """
{_words(alpha2)}
"""

_ISO_639_2 = """
{_words(alpha3)}
"""

_COUNTRIES = """
{_words(countries)}
"""

#: The {len(alpha2)} two-letter language codes of ISO 639-1, lower case.
ISO_639_1 = frozenset(_LANGUAGES.split())

#: Each ISO 639-2 code (terminology and bibliographic) of a language that has an ISO 639-1 code -> that code.
ISO_639_2_TO_1 = {{three: one for three, _, one in (pair.partition(":") for pair in _ISO_639_2.split())}}

#: The {len(countries)} two-letter country codes of ISO 3166-1 (alpha-2), upper case.
ISO_3166_1 = frozenset(_COUNTRIES.split())
'''
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"{OUTPUT}: {len(alpha2)} languages, {len(alpha3)} ISO 639-2 codes, {len(countries)} regions")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/usr/share/iso-codes/json"))
