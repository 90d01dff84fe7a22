"""Built-in formats, one public module each, exposing ``FORMAT``, a :class:`feedmap.FormatSpec`; a format module
imports no other format.  The private modules (``_xmlwrite``, ``_output``, ...) are what they share, and
:mod:`feedmap.formats.ext` holds the extensions of the XML formats (image, hreflang)."""
