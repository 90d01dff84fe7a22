"""Built-in formats, one module each; every module exposes ``FORMAT``, a :class:`feedmap.FormatSpec`."""
