"""Which of a command's variables belong to another LLM provider than its profile's: what
``exec --scrub-other-providers`` takes out of the command's environment and ``env
--scrub-other-providers`` unsets in the shell.

A variable is another provider's when its name starts with ``PREFIX_`` for a ``PREFIX`` of
:data:`FAMILIES` that the profile does not own, and ends with a key
(:data:`CREDENTIAL_SUFFIXES`), a base URL (:data:`URL_SUFFIXES`) or headers
(:data:`HEADER_SUFFIXES`), or is one of its account's :data:`OPENAI_OTHERS`: ``GEMINI_API_KEY``,
``GOOGLE_GENERATIVE_AI_API_KEY``, ``OPENAI_BASE_URL``, ``OPENAI_ORG_ID`` beside a Claude
profile's Claude Code, ``ANTHROPIC_CUSTOM_HEADERS`` beside a Codex one. A broad prefix
(:data:`EXACT_ONLY`: ``AZURE``, ``GOOGLE``) takes no middle part: ``AZURE_CLIENT_SECRET`` and
``GOOGLE_MAPS_API_KEY`` are no LLM provider's and stay; so does another profile's
``env_prefix`` (it names what that profile exports, nothing more). The longest prefix that
takes a name decides (``AZURE_OPENAI_API_KEY`` is ``AZURE_OPENAI``'s, not ``AZURE``'s). Names
only are ever said, never values. It is opt-in (why: docs/profiles.md, under One provider per
terminal): those variables point at their own providers, not at this profile's gateway, and a
command may need them (an eval that calls another provider beside the profile's, an MCP
server's embeddings).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from judgeaudit.profiles.model import ANTHROPIC_FAMILY

if TYPE_CHECKING:
    from judgeaudit.profiles.model import Profile

#: The credential variables of one family (``PREFIX_`` + one of these): a program of that
#: family reads whichever it ranks first (the Anthropic SDK ``ANTHROPIC_API_KEY``, another the
#: ``ANTHROPIC_AUTH_TOKEN``), so a shell's leftover of another provider could go to the
#: profile's gateway. Longest first: ``X_AUTH_TOKEN`` is of family ``X``.
CREDENTIAL_SUFFIXES = (
    "SESSION_TOKEN", "ACCESS_TOKEN", "AUTH_TOKEN", "SECRET_KEY", "ADMIN_KEY", "API_KEY",
    "SECRET", "TOKEN", "KEY",
)  # fmt: skip
#: Where a family's SDK sends its requests (``OPENAI_API_BASE``: openai < 1 and LangChain).
URL_SUFFIXES = ("BASE_URL", "API_BASE", "API_URL", "ENDPOINT")
#: Headers a family's tool sends with every request, a credential line among them as often as
#: not (Claude Code's ``ANTHROPIC_CUSTOM_HEADERS``: ``x-api-key: ...`` of another gateway).
HEADER_SUFFIXES = ("CUSTOM_HEADERS", "DEFAULT_HEADERS")
#: Another OpenAI account's or endpoint's variables that no suffix names: read by the openai
#: SDKs (the organisation and project go out as headers), legacy openai < 1, the Azure clients
#: and LiteLLM (``AZURE_API_KEY``/``_BASE``/``_VERSION``: its names for Azure OpenAI, the
#: service of ``AZURE_OPENAI_*``). They go with their account's key: ``execenv.cleared`` takes
#: them from a command given the profile's ``OPENAI_*``; the scrub, with the OpenAI family's
#: (or Azure OpenAI's) key beside another provider's profile.
OPENAI_OTHERS = (
    "OPENAI_ORG_ID", "OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID", "OPENAI_API_TYPE",
    "OPENAI_API_VERSION", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN", "AZURE_API_KEY", "AZURE_API_BASE", "AZURE_API_VERSION",
)  # fmt: skip

#: The name prefixes of LLM providers whose SDKs and tools read ``PREFIX_..._API_KEY`` /
#: ``PREFIX_BASE_URL`` (the presets' ``env_prefix`` families among them): ``AZURE`` for
#: ``AZURE_API_KEY``, ``CLAUDE_CODE`` for ``CLAUDE_CODE_OAUTH_TOKEN``, the clouds that host
#: Claude apart from ``ANTHROPIC`` (a Claude profile's gateway is not Foundry).
#: ``GITHUB_TOKEN``, ``AWS_*`` and the like are no provider of an OpenAI-compatible gateway and
#: stay. Azure AI inference's ``AZURE_AI_INFERENCE_*``/``AZURE_AI_CHAT_*`` are families of their
#: own (``AZURE_AI`` is broad: ``AZURE_AI_SEARCH_KEY`` stays).
FAMILIES = (
    "OPENAI", "AZURE_OPENAI", "AZURE_AI_INFERENCE", "AZURE_AI_CHAT", "AZURE_AI", "AZURE", "ANTHROPIC", "ANTHROPIC_FOUNDRY", "ANTHROPIC_BEDROCK",
    "ANTHROPIC_VERTEX", "CLAUDE_CODE", "GEMINI", "GOOGLE", "GOOGLE_GENERATIVE_AI", "DEEPSEEK", "OPENROUTER",
    "MISTRAL", "GROQ", "TOGETHER", "FIREWORKS", "COHERE", "CO", "XAI", "PERPLEXITY",
    "DASHSCOPE", "MOONSHOT", "ZHIPUAI", "TAOTOKEN",
)  # fmt: skip
#: Broad prefixes (a cloud's, a short one) whose other variables are no LLM provider's
#: (``AZURE_CLIENT_SECRET``, ``AZURE_STORAGE_KEY``, ``GOOGLE_MAPS_API_KEY``,
#: ``GOOGLE_OAUTH_ACCESS_TOKEN``): only ``PREFIX_`` + one of :data:`EXACT_SUFFIXES` is theirs
#: (``AZURE_API_KEY``, ``AZURE_API_BASE``, ``GOOGLE_API_KEY``, ``CO_API_URL``), nothing between;
#: their LLM families are families of their own (``AZURE_OPENAI_*``, ``GOOGLE_GENERATIVE_AI_*``).
EXACT_ONLY = frozenset({"AZURE", "AZURE_AI", "GOOGLE", "CO"})
EXACT_SUFFIXES = ("API_KEY", *URL_SUFFIXES)
#: Owning a family owns these too: Claude Code's own variables (``CLAUDE_CODE_CLIENT_KEY``, its
#: mTLS key file; its ``CLAUDE_CODE_OAUTH_TOKEN`` login) stay beside a Claude profile; LiteLLM's
#: ``AZURE_API_*`` and ``AZURE_OPENAI_*`` are one service's (Azure OpenAI) under two names.
SAME_OWNER = {
    ANTHROPIC_FAMILY: ("CLAUDE_CODE",),
    "AZURE_OPENAI": ("AZURE",),
    "AZURE": ("AZURE_OPENAI",),
}


def _split(name: str, suffixes: Iterable[str]) -> str | None:
    for suffix in suffixes:
        if name.endswith(f"_{suffix}") and len(name) > len(suffix) + 1:
            return name[: -len(suffix) - 1]
    return None


def credential_family(name: str) -> str | None:
    """``OPENAI`` of ``OPENAI_API_KEY``: the prefix before a key suffix (the longest suffix
    that fits), else None."""
    return _split(name, CREDENTIAL_SUFFIXES)


def family_of(name: str) -> str | None:
    """``OPENAI`` of ``OPENAI_API_KEY`` or ``OPENAI_BASE_URL``: the prefix before a key or base
    URL suffix (the longest suffix that fits), else None."""
    return _split(name, URL_SUFFIXES) or credential_family(name)


def _takes(prefix: str, name: str, exact: bool) -> bool:
    """Whether ``name`` is ``prefix``'s: ``PREFIX_SUFFIX`` or ``PREFIX_..._SUFFIX`` for a key,
    base URL or header suffix, only ``PREFIX_SUFFIX`` of :data:`EXACT_SUFFIXES` when ``exact``;
    or one of :data:`OPENAI_OTHERS`, for the built-in family it starts with."""
    if prefix in FAMILIES and name in OPENAI_OTHERS:
        return True
    tail = name[len(prefix) + 1 :]
    if exact:
        return tail in EXACT_SUFFIXES
    suffixes = (*URL_SUFFIXES, *CREDENTIAL_SUFFIXES, *HEADER_SUFFIXES)
    return any(tail == s or tail.endswith(f"_{s}") for s in suffixes)


def _prefix(name: str, full: Iterable[str], exact: Iterable[str] = ()) -> str | None:
    """The longest prefix ``name`` starts with (``PREFIX_``) that takes it (:func:`_takes`):
    one of ``full`` by any suffix, one of ``exact`` (or :data:`EXACT_ONLY`) only as
    ``PREFIX_API_KEY`` or a base URL. A prefix that does not take it leaves it to a shorter
    one: another profile's ``env_prefix = "OPENAI_X"`` leaves ``OPENAI_X_ADMIN_KEY`` OpenAI's."""
    narrow = {*exact, *EXACT_ONLY}
    starts = {prefix for prefix in (*full, *narrow) if name.startswith(f"{prefix}_")}
    for prefix in sorted(starts, key=len, reverse=True):
        if _takes(prefix, name, prefix in narrow):
            return prefix
    return None


def others(
    env: Mapping[str, str], own: Iterable[str], families: Iterable[str] = ()
) -> tuple[str, ...]:
    """The names in ``env`` of another provider's key, base URL or headers, sorted: the prefix
    that takes them (:func:`_prefix`) is one of :data:`FAMILIES` or ``families`` (the user's
    profiles' ``env_prefix``) and not in ``own`` (the families whose variables the profile gives
    the command). Another profile's ``env_prefix`` that is no built-in family takes only what
    that profile exports (``PREFIX_API_KEY``, ``PREFIX_BASE_URL``): ``env_prefix = "AWS"`` (refused
    since) took ``AWS_SECRET_ACCESS_KEY`` from every other profile's command and left its
    ``AWS_ACCESS_KEY_ID``."""
    mine = {family.upper() for family in own}
    full = {*FAMILIES, *mine}
    exact = {family.upper() for family in families} - full
    return tuple(
        sorted(n for n in env if (p := _prefix(n, full, exact)) is not None and p not in mine)
    )


def own_families(names: Iterable[str]) -> set[str]:
    """The families of the variables a profile sets (``OPENAI`` of ``OPENAI_MODEL`` too)."""
    out = {family for name in names if (family := family_of(name))}
    out |= {name.removesuffix("_MODEL") for name in names if name.endswith("_MODEL")}
    return out


def profile_families(names: Iterable[str], key_env: str | None, env_prefix: object) -> set[str]:
    """The families a profile owns: those of the variables it gives the command, of the
    variable it reads its own key from (``key_env = "DEEPSEEK_API_KEY"``: the scrub took the
    profile's own key away, and the next ``env`` found none), its ``env_prefix``, and what
    :data:`SAME_OWNER` adds to them."""
    own = own_families(names)
    if key_env and (family := family_of(key_env)):
        own.add(family)
    if isinstance(env_prefix, str) and env_prefix:
        own.add(env_prefix.upper())
    return own | {more for family in own for more in SAME_OWNER.get(family, ())}


def user_prefixes(profiles: Iterable[Profile]) -> tuple[str, ...]:
    """The ``env_prefix`` families of the user's profiles: another profile's provider is
    another provider (unless it is this profile's too)."""
    return tuple(str(p.option("env_prefix")) for p in profiles if p.option("env_prefix"))


def left_out(
    profile: Profile,
    given: Iterable[str],
    key: str,
    env: Mapping[str, str],
    families: Iterable[str],
) -> tuple[str, ...]:
    """What ``--scrub-other-providers`` takes out of ``env`` for ``profile`` (``given``: the
    variables it gives the command; ``families``: :func:`user_prefixes`): :func:`others`,
    less the profile's own (its ``key_env`` and any variable holding its ``key``, whatever its
    name: the rule ``execenv.cleared`` keeps too)."""
    own = profile_families(given, profile.key_env, profile.option("env_prefix"))
    return tuple(
        name for name in others(env, own, families) if env[name] != key and name != profile.key_env
    )
