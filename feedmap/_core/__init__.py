"""The core every part shares: the model (entries and documents), W3C dates, URL rules, errors and
diagnostics, options and their checks, and the wording of messages."""
