"""A Brigadier-style string reader and the syntax error vanilla reports (text + ``<--[HERE]`` context).

Why a clone of Brigadier's reader: vanilla's parse errors are defined by where Brigadier's
``StringReader`` stops (``CommandSyntaxException.getCursor``) and by the ``parsing.*`` / ``argument.*``
language texts. Reproducing the reader's rules (which characters an unquoted string or a number may
hold, what a quoted string escapes) reproduces vanilla's messages and cursor positions.
"""

from __future__ import annotations

from mirrorcraft.errors import MirrorCraftError
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands.texts import fmt, lang, tr

CONTEXT_AMOUNT = 10  # Brigadier's CommandSyntaxException.CONTEXT_AMOUNT


class CommandSyntaxError(MirrorCraftError, ValueError):
    """A command failed to parse or execute, with vanilla's message.

    Attributes:
        key: the language key of the message (``None`` for a MirrorCraft-only message).
        text: the formatted message.
        input: the command text when the error has a position (``None`` otherwise).
        cursor: the position in ``input`` the error points at (``-1`` without context).
    """

    def __init__(
        self,
        key: str | None,
        *args: object,
        text: str | None = None,
        input: str | None = None,
        cursor: int = -1,
    ) -> None:
        self.key = key
        self.args_ = args
        self.text = text if text is not None else tr(key, *args) if key else ""
        self.input = input
        self.cursor = cursor
        super().__init__(self.describe())

    def context(self) -> str | None:
        """Vanilla's second line: up to 10 characters before the cursor, the rest, then ``<--[HERE]``
        (``Commands.performCommand``); ``None`` when the error has no position."""
        if self.input is None or self.cursor < 0:
            return None
        i = min(len(self.input), self.cursor)
        out = "..." if i > CONTEXT_AMOUNT else ""
        out += self.input[max(0, i - CONTEXT_AMOUNT) : i]
        if i < len(self.input):
            out += self.input[i:]
        return out + lang()["command.context.here"]

    def messages(self) -> list[str]:
        """The failure messages a vanilla command source receives, in order."""
        ctx = self.context()
        return [self.text] if ctx is None else [self.text, ctx]

    def component(self) -> dict:
        """The error message as vanilla's component (``ComponentUtils.fromMessage`` of the translatable
        message vanilla's ``BrigadierExceptions`` build; a MirrorCraft-only message is literal text)."""
        if self.key:
            return C.translatable(self.key, *self.args_)
        return C.text(self.text)

    def components(self) -> list[dict]:
        """What ``Commands.performCommand`` sends a source for a syntax error, as components: the message,
        then (with a position) the gray context line — up to 10 characters before the cursor, the rest
        red and underlined, ``<--[HERE]`` red and italic, a click suggesting the command — each wrapped
        red by ``sendFailure``."""
        out = [C.failure(self.component())]
        if self.input is None or self.cursor < 0:
            return out
        i = min(len(self.input), self.cursor)
        parts = []
        if i > CONTEXT_AMOUNT:
            parts.append(C.text("..."))
        parts.append(C.text(self.input[max(0, i - CONTEXT_AMOUNT) : i]))
        if i < len(self.input):
            parts.append(C.text(self.input[i:], underlined=True, color="red"))
        parts.append(C.translatable("command.context.here", italic=True, color="red"))
        click = {"action": "suggest_command", "value": "/" + self.input}
        out.append(C.failure(C.empty(*parts, color="gray", clickEvent=click)))
        return out

    def describe(self) -> str:
        """One line: Brigadier's ``getMessage()`` form ``<text> at position <n>: <context>``."""
        if self.input is None or self.cursor < 0:
            return self.text
        i = min(len(self.input), self.cursor)
        ctx = ("..." if i > CONTEXT_AMOUNT else "") + self.input[max(0, i - CONTEXT_AMOUNT) : i]
        return fmt(lang()["command.context.parse_error"], self.text, self.cursor, ctx + "<--[HERE]")


def _allowed_unquoted(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_-.+")


def _allowed_number(c: str) -> bool:
    return c.isdigit() or c in ".-"


class StringReader:
    """Brigadier's ``StringReader``: a cursor over the command text."""

    def __init__(self, string: str, cursor: int = 0) -> None:
        self.string = string
        self.cursor = cursor

    def copy(self) -> StringReader:
        return StringReader(self.string, self.cursor)

    def can_read(self, length: int = 1) -> bool:
        return self.cursor + length <= len(self.string)

    def peek(self, offset: int = 0) -> str:
        return self.string[self.cursor + offset]

    def read(self) -> str:
        c = self.string[self.cursor]
        self.cursor += 1
        return c

    def skip(self) -> None:
        self.cursor += 1

    @property
    def remaining(self) -> str:
        return self.string[self.cursor :]

    def error(
        self, key: str | None, *args: object, text: str | None = None, at: int | None = None
    ) -> CommandSyntaxError:
        """An error with this reader's context (at ``at`` or the current cursor)."""
        return CommandSyntaxError(
            key, *args, text=text, input=self.string, cursor=self.cursor if at is None else at
        )

    def skip_whitespace(self) -> None:
        while self.can_read() and self.peek().isspace():
            self.skip()

    def _read_number_text(self) -> tuple[int, str]:
        start = self.cursor
        while self.can_read() and _allowed_number(self.peek()):
            self.skip()
        return start, self.string[start : self.cursor]

    def read_int(self) -> int:
        start, text = self._read_number_text()
        if not text:
            raise self.error("parsing.int.expected")
        try:
            value = int(text)
        except ValueError:
            self.cursor = start
            raise self.error("parsing.int.invalid", text) from None
        if not -(2**31) <= value < 2**31:
            self.cursor = start
            raise self.error("parsing.int.invalid", text)
        return value

    def read_double(self, *, key: str = "double") -> float:
        start, text = self._read_number_text()
        if not text:
            raise self.error(f"parsing.{key}.expected")
        try:
            if text.count(".") > 1 or text in {".", "-", "-."} or "-" in text[1:]:
                raise ValueError(text)
            return float(text)
        except ValueError:
            self.cursor = start
            raise self.error(f"parsing.{key}.invalid", text) from None

    def read_float(self) -> float:
        return self.read_double(key="float")

    def read_unquoted(self) -> str:
        start = self.cursor
        while self.can_read() and _allowed_unquoted(self.peek()):
            self.skip()
        return self.string[start : self.cursor]

    def read_quoted(self) -> str:
        if not self.can_read():
            return ""
        quote = self.peek()
        if quote not in "\"'":
            raise self.error("parsing.quote.expected.start")
        self.skip()
        out: list[str] = []
        escaped = False
        while self.can_read():
            c = self.read()
            if escaped:
                if c == quote or c == "\\":
                    out.append(c)
                    escaped = False
                else:
                    self.cursor -= 1
                    raise self.error("parsing.quote.escape", c)
            elif c == "\\":
                escaped = True
            elif c == quote:
                return "".join(out)
            else:
                out.append(c)
        raise self.error("parsing.quote.expected.end")

    def read_string(self) -> str:
        """A quoted string, or an unquoted word (Brigadier ``readString``)."""
        if self.can_read() and self.peek() in "\"'":
            return self.read_quoted()
        return self.read_unquoted()

    def read_bool(self) -> bool:
        start = self.cursor
        value = self.read_string()
        if not value:
            raise self.error("parsing.bool.expected")
        if value == "true":
            return True
        if value == "false":
            return False
        self.cursor = start
        raise self.error("parsing.bool.invalid", value)

    def expect(self, c: str) -> None:
        if not self.can_read() or self.peek() != c:
            raise self.error("parsing.expected", c)
        self.skip()

    def read_word(self) -> str:
        """Characters up to the next space (Brigadier's literal/word matching)."""
        start = self.cursor
        while self.can_read() and self.peek() != " ":
            self.skip()
        return self.string[start : self.cursor]

    def read_resource_location(self) -> str:
        """A ``namespace:path`` id (vanilla ``ResourceLocation.read``); the namespace defaults to
        ``minecraft``; ``argument.id.invalid`` when a character is not allowed."""
        start = self.cursor
        while self.can_read() and _resource_char(self.peek()):
            self.skip()
        text = self.string[start : self.cursor]
        ns, sep, path = text.partition(":")
        if not sep:
            ns, path = "minecraft", ns
        ok_ns = all(c.islower() or c.isdigit() or c in "_-." for c in ns)
        ok_path = all(c.islower() or c.isdigit() or c in "_-./" for c in path)
        if not (ok_ns and ok_path) or ":" in path:
            self.cursor = start
            raise self.error("argument.id.invalid")
        return f"{ns}:{path}"


def _resource_char(c: str) -> bool:
    # ResourceLocation.isAllowedInResourceLocation: [0-9a-z_:/.-] (upper case ends the id).
    return c in "0123456789abcdefghijklmnopqrstuvwxyz_:/.-"
