"""What an account name, a password, a chat message and a muted author may be: checked here, refused with a message.

Pure: the gateway turns a ``RuleViolation`` into a 4xx with its message.
"""

from __future__ import annotations

import re
import unicodedata

from domain.engine import RuleViolation

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,23}\Z")
"""2-24 letters, digits, ``_.-``, starting with a letter or digit: safe in a URL path and a Redis key."""
MIN_PASSWORD = 8
MAX_PASSWORD = 256
"""Argon2 hashes any length, but a megabyte password is a request to burn the server's CPU."""
MAX_CHAT = 300
"""Characters in one chat message."""
CHANNELS = ("players", "spectators")
MAX_AUTHOR = 64
"""Characters in a chat author's name as a mute names it (a seat's name, a bot's or an account's)."""
MAX_MUTED = 200
"""Authors one account may have muted."""


def checked_name(name: str) -> str:
    """The account name as stored (case kept) or a ``RuleViolation`` saying what is wrong with it."""
    if not isinstance(name, str) or not NAME.match(name):
        raise RuleViolation(
            "bad_name", "a name is 2 to 24 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    return name


def name_key(name: str) -> str:
    """Names are unique regardless of case: ``Ann`` and ``ann`` are one account."""
    return name.lower()


def checked_password(password: str, name: str) -> str:
    """A password long enough, not absurdly long, and not the name itself."""
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise RuleViolation("bad_password", f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters long")
    if password.lower() == name.lower():
        raise RuleViolation("bad_password", "a password must not be the account's name")
    return password


def checked_chat(text: str, channel: str) -> str:
    """A chat message stripped of control characters (a newline stays) and surrounding space."""
    if channel not in CHANNELS:
        raise RuleViolation("bad_channel", "a chat channel is 'players' or 'spectators'")
    cleaned = "".join(c for c in text if c == "\n" or unicodedata.category(c)[0] != "C").strip()
    if not cleaned:
        raise RuleViolation("empty_chat", "a chat message needs some text")
    if len(cleaned) > MAX_CHAT:
        raise RuleViolation("chat_too_long", f"a chat message is at most {MAX_CHAT} characters")
    return cleaned


def checked_author(author: str) -> str:
    """A chat author's name as shown beside a message, for a mute: 1 to 64 characters, none a control."""
    if not 1 <= len(author) <= MAX_AUTHOR or any(unicodedata.category(c)[0] == "C" for c in author):
        raise RuleViolation("bad_author", f"an author's name is 1 to {MAX_AUTHOR} printable characters")
    return author


def chat_reaches(channel: str, *, tournament: bool, finished: bool) -> bool:
    """Whether a message of ``channel`` is delivered to (and listed for) readers now. Players' chat reaches
    everyone. Spectators' chat reaches everyone too, except in a tournament game still being played: there
    it reaches nobody until the game ends, since a spectator could coach a player, and a player can read as
    anyone (anonymously, or signed in to a second account), so holding it back from seats alone hid nothing
    (issue 43, finding 17). It is kept, and read by all once the game is over."""
    return channel == "players" or not tournament or finished


def may_post(channel: str, *, is_player: bool) -> bool:
    """Players write in the players' channel, everyone else in the spectators'."""
    return (channel == "players") == is_player
