"""A Griffe extension for the API reference: the docstrings' Sphinx roles become links to the public names.

feedmap's docstrings cross-reference in reStructuredText (``:class:`~feedmap.Entry```, ``:func:`read```),
which Markdown shows as raw text. Each role becomes a Markdown cross-reference that mkdocs-autorefs resolves
(``[`Entry`][feedmap.Entry]``) when its target is a public name the reference shows, under that public name
(a private module's class, as ``feedmap.Options``, links to ``feedmap.Options``); any other target (a private
helper, the standard library) becomes code text, never a link: the reference shows public names only.  A
doctest session (``>>>``) becomes a code block.
(Griffe extensions: https://mkdocstrings.github.io/griffe/guide/users/extending/)
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import griffe

#: The public modules whose ``__all__`` the reference shows (docs/reference/api.md).
PUBLIC_MODULES = ("feedmap", "feedmap.formats", "feedmap.converters")
#: Deprecated aliases in an ``__all__``: no entry of their own, and not read (reading one warns).
DEPRECATED = frozenset({"feedmap.transforms"})
#: ``:role:`target```, ``:role:`~target``` (shown by its last name), ``:role:`text <target>```.
#: A doctest session (``>>>`` lines and their ``...`` continuations), shown as a code block.
DOCTEST = re.compile(r"^>>> .*\n(?:(?:>>>|\.\.\.) .*(?:\n|$))*", re.MULTILINE)
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const):`(~?)([^`<]*?)(?:\s*<([^`>]+)>)?`")


def public_names() -> dict[str, tuple[str, object]]:
    """Each public name by its own path and by where it is defined, with its object:
    ``feedmap._core.model.Entry`` -> ``("feedmap.Entry", Entry)``."""
    names: dict[str, tuple[str, object]] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        names[module_name] = (module_name, module)
        for name in getattr(module, "__all__", ()):
            if f"{module_name}.{name}" in DEPRECATED:
                continue
            value = getattr(module, name)
            public = (f"{module_name}.{name}", value)
            names[public[0]] = public
            defined = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
            if isinstance(defined[0], str) and isinstance(defined[1], str):
                names.setdefault(f"{defined[0]}.{defined[1]}", public)
    return names


def _shown_member(owner: object, member: str) -> bool:
    """Whether the reference shows ``member`` under the class ``owner`` (its own, public members)."""
    if not isinstance(owner, type) or member.startswith("_"):
        return False
    return member in vars(owner) or member in getattr(owner, "__annotations__", {})


def public_target(target: str, scopes: list[str], names: dict[str, tuple[str, object]]) -> str | None:
    """The public path ``target`` names, looked up as written then in each scope (its class, its module)."""
    for candidate in [target, *(f"{scope}.{target}" for scope in scopes)]:
        if candidate in names:
            return names[candidate][0]
        owner, _, member = candidate.rpartition(".")  # a member of a public class: Options.strict
        if owner in names and _shown_member(names[owner][1], member):
            return f"{names[owner][0]}.{member}"
    return None


def rewrite(text: str, scopes: list[str], names: dict[str, tuple[str, object]]) -> str:
    """``text`` with each role a cross-reference (public target) or code text (any other)."""

    def replace(match: re.Match[str]) -> str:
        short, written, explicit = match.group(1), match.group(2).strip(), match.group(3)
        target = (explicit or written).strip().rstrip("()")
        shown = written if explicit else (target.rsplit(".", 1)[-1] if short else written)
        public = public_target(target, scopes, names)
        return f"[`{shown}`][{public}]" if public else f"`{shown}`"

    return DOCTEST.sub(lambda session: f"```pycon\n{session.group(0).rstrip()}\n```\n", ROLE.sub(replace, text))


class SphinxRoles(griffe.Extension):
    """Rewrite the roles (and doctest sessions) of every docstring once the object tree is loaded."""

    def __init__(self) -> None:
        super().__init__()
        self.names = public_names()

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        self.on_object(obj=pkg)

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        scopes = [obj.path, obj.module.path]
        if obj.parent is not None:
            scopes.insert(1, obj.parent.path)
        obj.docstring.value = rewrite(obj.docstring.value, scopes, self.names)
