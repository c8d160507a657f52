"""A name in a Discord post: shown as the letters it is made of, never as markdown, a masked link or a mention.

Names come from scenario files, imports and directors' commands, and Discord renders a post's text and its
embeds as markdown: ``[x](https://…)`` would be a link whose target the reader never sees, ``**``, ``||`` or a
leading ``#`` would change the look of the bot's own words around it. :func:`shown_name` escapes what Discord
would read as markup (and drops what :func:`rules.names.clean_name` drops, for a name that entered before that
rule or through an import). Component labels, autocomplete choices and images take the plain name: Discord does
not render markdown there.
"""

from __future__ import annotations

import re

from rules.names import clean_name

#: characters Discord markdown reads anywhere in a line: emphasis, strike, spoiler, code, masked links' brackets,
#: quotes, and the ``<…>`` of mentions, timestamps and embedded links
_MARKUP = re.compile(r"([\\*_~|`\[\]<>])")
#: what only the start of a line makes markup (a heading, a list item, small text): escaped where a text begins
_LEADING = re.compile(r"^(?=#{1,3} |[-+] |-# )")


def shown_name(name: str) -> str:
    """``name`` for a post's text or an embed: every markdown character escaped with a backslash."""
    return escape_markdown(clean_name(name))


def escape_markdown(text: str) -> str:
    """``text`` as Discord shows it letter for letter: each markdown character after a backslash."""
    return _LEADING.sub(r"\\", _MARKUP.sub(r"\\\1", text))
