"""The one scrubber for credentials: where a URL or a name is accepted, and what is written.

Keys live in the keyring (or an environment variable a profile names); they must never be
carried by a URL (``http://user:KEY@host/v1`` ends up in manifests, databases and logs), nor
typed where a name goes (a model, an agent, an environment variable's name, a provider name):
such a value is refused with one line that never repeats it. Text bound for a manifest, a
database, a log, an export or a reply goes through :func:`scrub`.

The key-likeness rule itself (known prefixes, long random runs) is owned by
:mod:`judgeaudit.redact`; this module applies it at every entry point.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from urllib.parse import urlsplit

from judgeaudit.errors import InputError
from judgeaudit.redact import (
    keylike_words,
    looks_like_key,
    mask_key_shapes,
    redact,
    scrub_keylike,
)

ErrorType = type[InputError]

#: ``scheme://user:password@`` (or ``user@``) inside any text, up to the authority's last ``@``
#: (``https://user:p@ss@host``: the password holds an ``@``; urlsplit takes the last one too).
#: What no URL holds (RFC 3986: ``"``, ``<``, ``>``, a backtick) ends it: a JSON line's next
#: field is no password. ``'`` may be in a password, so it does not.
#: The scheme is bounded and starts where no scheme character stands before it (a word
#: boundary inside ``a.a.a…`` retried at every dot: 8 s on 40 KB).
USERINFO_RE = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}://)([^/\s?#\"<>`]+)@")
#: ``user:password@host`` without a scheme, as a word of its own (a password holding ``@``
#: too; the user may be empty). A colon is needed: ``git@github.com:org/repo`` and
#: ``alice@example.com`` are no login; nor is ``mailto:alice@example.com``. The host must look
#: like one (a dot, ``localhost``, a port or ``[``): ``vertex:claude-x@20240620`` or
#: ``name:model@latest`` stay, and so does a one-word host (``admin:pw@db``). The parts are
#: bounded: every stderr line is scrubbed, and unbounded ones took 25 s on an 80 KB line.
BARE_LOGIN_RE = re.compile(
    r"""(?<![^\s"'=(,\[])(?!mailto:)[^\s:/@"'=(,\[]{0,128}:[^\s/"']{1,256}@"""
    r"""(?=(?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]|localhost\b|[A-Za-z0-9-]+:\d|\[)"""
)
#: ``curl -u user:password`` (``--user``, ``--proxy-user``, ``-U``, ``-uuser:pw``, a cluster of
#: short options ending in one, ``-sSu``; quoted): the value after the option, if it has a colon
#: (``-u user`` makes curl ask; ``python -u x`` stays). Masked before the URL and bare rules,
#: which would take a password's ``@`` for a host's. The cluster is bounded (a lazy run retried
#: at every ``u``: 11 s on 40 KB of ``-uuu…``).
_LONG_LOGIN = r"--user|--proxy-user"
_SHORT_LOGIN = r"-[A-Za-z]{0,8}?[uU]"
OPTION_LOGIN_RE = re.compile(
    r"""((?<![\w-])(?:"""
    + _LONG_LOGIN
    + r""")(?:=|[ \t]+)|(?<!\S)"""
    + _SHORT_LOGIN
    + r"""[ \t]*)"""
    r"""('[^']*:[^']*'|"[^"]*:[^"]*"|[^\s'"]*:[^\s'"]*)"""
)

#: A password, token or key given by name on a command line or in a URL, its value masked:
#: ``--password=PW`` (wget's ``--http-password``, ``--proxy-password``), ``--token PW``,
#: ``--api-key PW``, a variable set before a command (``PGPASSWORD=PW psql``,
#: ``GITHUB_TOKEN=PW``) and a URL's query (``?api-key=PW``, Azure's form; ``&token=PW``).
#: A name ending in one of those counts (``--client-secret``, ``?refresh_token=``); a value runs
#: to a space or quote (``#`` and ``&`` are a password's in a shell), a query value to ``&``/``#``.
#: ``max_tokens=100``, ``--token-env X`` and ``?api-version=`` are no secret's name.
#: the names, written once for the line rule here and the argument rules of :func:`shown_command`
_SECRET_OPTION = r"--(?i:[\w-]{0,32}(?:password|passwd|token|secret|api[-_]?key))"
_SECRET_VARIABLE = r"[A-Z0-9_]{0,64}(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY)"
SECRET_PARAM_RE = re.compile(
    r"""(?:((?<![\w-])""" + _SECRET_OPTION + r"""(?:=|[ \t]+)"""
    r"""|(?<![\w$])""" + _SECRET_VARIABLE + r"""=)"""
    r"""(?!\.\.\.|…)('[^']*'|"[^"]*"|[^\s'"`]+)"""
    r"""|([?&](?i:[\w-]{0,32}(?:token|key|password|pwd|secret|sig))=)([^\s&'"#`]+))"""
)


def _secret_param(found: re.Match[str]) -> str:
    """:data:`SECRET_PARAM_RE`'s name kept, its value masked (a placeholder ``...`` is none)."""
    return f"{found[1] or found[3]}***"


def has_userinfo(url: str) -> bool:
    """Whether ``url`` carries a user name or password before its host."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "@" in url.split("/", 3)[2] if url.count("/") >= 2 else False
    return bool(parts.username or parts.password or "@" in parts.netloc)


def mask_inline_credentials(text: str) -> str:
    """``text`` (a URL, a command line, a log line) with the credentials written into it
    replaced by ``***`` (safe to print): a URL's ``user:password@``, a bare
    ``user:password@host``, a command line's ``curl -u user:password`` (a helper or auth command
    doctor shows) and a secret given by name (:data:`SECRET_PARAM_RE`). Named ``shown_url``
    until it masked more than URLs."""
    if "@" not in text and ":" not in text and "=" not in text and "--" not in text:
        return text  # the usual line
    text = SECRET_PARAM_RE.sub(_secret_param, OPTION_LOGIN_RE.sub(r"\1***", text))
    return BARE_LOGIN_RE.sub("***@", USERINFO_RE.sub(r"\1***@", text))


def check_url(url: str, where: str, error: ErrorType = InputError) -> str:
    """Refuse a URL with credentials in it; the message shows it with them masked."""
    if has_userinfo(url):
        raise error(
            f"{where}: {mask_inline_credentials(url)} carries credentials (user:password@); "
            "remove them and "
            "give the key through the keyring or an environment variable (nothing was written)"
        )
    return url


def check_name(value: str, where: str, error: ErrorType = InputError) -> str:
    """Refuse a key typed where a name goes (never echoing it)."""
    if looks_like_key(value) or keylike_words(value):
        raise error(
            f"{where}: looks like an API key, not a name; give the name here and store the key "
            "with `judgeaudit key set` (the value was not saved or shown)"
        )
    return value


#: Variables a command and its children run by: never the one a key is put in (Codex's
#: ``env_key``: with ``PATH`` the command was "not found" and the key sat in ``PATH``) nor the one
#: a key is read from (``key_env = "PATH"`` sent the user's ``PATH`` out as the bearer token).
SYSTEM_VARS = frozenset(
    {"PATH", "HOME", "SHELL", "USER", "LOGNAME", "PWD", "TMPDIR", "TEMP", "TMP", "LANG", "TERM",
     "NODE_OPTIONS", "NODE_PATH", "CODEX_HOME", "SSL_CERT_FILE", "SSL_CERT_DIR"}
)  # fmt: skip
#: Prefixes of the system's variables a key is never read from (the loader's, the locale's).
READ_PREFIXES = ("LD_", "DYLD_", "LC_")
#: ... and never written to: besides those, whole families that programs read
#: (``PYTHONANYWHERE_API_KEY`` is a fine variable to read a key from, not to put one in).
WRITE_PREFIXES = (*READ_PREFIXES, "PYTHON", "XDG_", "JUDGEAUDIT_")


def key_variable_problem(name: str, *, written: bool = False) -> str | None:
    """Why ``name`` cannot be the variable a key is read from (``key_env``, ``--judge-key-env``)
    or, ``written``, put in (Codex's ``env_key``): a system variable; else None."""
    prefixes = WRITE_PREFIXES if written else READ_PREFIXES
    if name not in SYSTEM_VARS and not name.startswith(prefixes):
        return None
    does = "exec would put the key in it" if written else "its value would go out as the key"
    return (
        f"{name} is one the system and programs run by ({does}); use a name of its own, "
        "e.g. GATEWAY_API_KEY"
    )


#: Other services' prefixes: a profile's ``env_prefix`` family has its other credential
#: variables cleared from the command (a shell's ``MYGW_AUTH_TOKEN`` would outrank the
#: profile's key), which for these would take the service's own login (``AWS_SESSION_TOKEN``
#: while ``AWS_ACCESS_KEY_ID`` stayed; npm's ``NODE_AUTH_TOKEN``: a new user).
OTHER_SERVICES = frozenset(
    {"AWS", "NODE", "NPM", "YARN", "GITHUB", "GH", "GITLAB", "GIT", "DOCKER", "SSH", "GPG",
     "KUBE", "VAULT", "TF", "TERRAFORM", "PIP", "UV", "CARGO", "GOOGLE_APPLICATION"}
)  # fmt: skip


def env_prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` cannot be an sdk profile's ``env_prefix`` (the profile writes
    ``PREFIX_API_KEY``, ``PREFIX_BASE_URL``, ``PREFIX_MODEL`` and clears that family's other
    credentials): a system variable's name (``PATH``, ``HOME``) or a prefix whose variables are
    the system's (``LD``, ``PYTHON...``, :func:`key_variable_problem`'s rule where a key is
    put), or another service's (:data:`OTHER_SERVICES`); else None."""
    upper = prefix.upper()
    if upper in OTHER_SERVICES:
        return (
            f"{upper} is another service's prefix (the profile would clear its credentials, "
            f"e.g. {upper}_SESSION_TOKEN, from the command); use the gateway's or provider's "
            "name, e.g. TAOTOKEN"
        )
    if upper not in SYSTEM_VARS and key_variable_problem(f"{upper}_API_KEY", written=True) is None:
        return None
    return (
        f"{upper} is a variable or prefix the system and programs run by (the profile would "
        f"write {upper}_API_KEY and keep {upper}_* variables); use the provider's name, e.g. "
        "TAOTOKEN"
    )


def check_key_variable(
    name: str, where: str, error: ErrorType = InputError, *, written: bool = False
) -> str:
    """:func:`key_variable_problem` as one line naming ``where``."""
    if (problem := key_variable_problem(name, written=written)) is not None:
        raise error(f"{where}: {problem}")
    return name


#: An option whose next argument is a secret: by name, or a login (``-u``, ``--user``: with a
#: colon in it, as :data:`OPTION_LOGIN_RE`).
_SECRET_NEXT = re.compile(_SECRET_OPTION)
_LOGIN_NEXT = re.compile(_LONG_LOGIN + "|" + _SHORT_LOGIN)
#: One argument naming a secret and holding it (``--password=p w``, ``PGPASSWORD=p w``).
_SECRET_EQ = re.compile(
    "(" + _SECRET_OPTION + "|" + _LONG_LOGIN + "|" + _SECRET_VARIABLE + ")=.*", re.DOTALL
)
_NEEDS_QUOTES = re.compile(r"""[\s'"\\$`;&|<>()]""")


def shown_command(argv: Iterable[object]) -> str:
    """A command's arguments (a Codex ``auth`` command) as a shell reads them, each masked on
    its own before it is quoted: quoting first put a password back in clear (``sh -c "curl -u
    'a:p w'"`` came out as ``'"'"'a:p w'"'"'``), joining unquoted masked a password with a space
    to its first word only. The argument after ``-u``/``--user`` (with a colon) or a secret's
    option (``--password``, ``--token``) is masked whole."""
    shown: list[str] = []
    before = ""
    for arg in map(str, argv):
        if _SECRET_NEXT.fullmatch(before) or (_LOGIN_NEXT.fullmatch(before) and ":" in arg):
            shown.append("***")
        elif named := _SECRET_EQ.fullmatch(arg):
            shown.append(f"{named[1]}=***")
        else:
            masked = scrub(arg)
            shown.append(shlex.quote(masked) if _NEEDS_QUOTES.search(masked) else masked)
        before = arg
    return " ".join(shown)


def scrub(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with the given secrets, inline credentials (:func:`mask_inline_credentials`)
    and key-like words masked."""
    return scrub_keylike(mask_key_shapes(mask_inline_credentials(redact(text, secrets))))


def scrub_content(text: str) -> str:
    """Content on its way to a file (a conversation, a tool result, a judge's reply, a provider's
    error): URL credentials and key-shaped words masked, the rest left as it was. Every log,
    database and export writer calls this; it is narrower than :func:`scrub` (names and messages)
    so that hashes and ids in conversations survive."""
    if len(text) < 11:  # shorter than any key shape: the common case, kept cheap
        return text
    if "://" in text:  # the URL regex alone cost a third of the scrubber's time on content
        text = USERINFO_RE.sub(r"\1***@", text)
    return mask_key_shapes(text)


__all__ = [
    "check_name",
    "check_url",
    "has_userinfo",
    "looks_like_key",
    "mask_inline_credentials",
    "scrub",
    "scrub_content",
    "shown_command",
]
