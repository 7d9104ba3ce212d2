"""Which of a command's variables belong to another LLM provider than its profile's: what
``exec --scrub-other-providers`` takes out of the command's environment and ``env
--scrub-other-providers`` unsets in the shell.

A variable is another provider's when its name is ``FAMILY_SUFFIX`` with ``FAMILY`` one of
:data:`FAMILIES` (or an ``env_prefix`` of the user's profiles) that the profile does not set,
and ``SUFFIX`` a key (:data:`CREDENTIAL_SUFFIXES`) or a base URL (:data:`URL_SUFFIXES`):
``GEMINI_API_KEY`` or ``OPENAI_BASE_URL`` beside a Claude profile's Claude Code. Names only are
ever said, never values. It is opt-in (why: docs/profiles.md, under One provider per terminal): those
variables point at their own providers, not at this profile's gateway, and a command may need
them (an eval that calls another provider beside the profile's, an MCP server's embeddings).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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

#: LLM providers whose SDKs and tools read ``FAMILY_API_KEY`` / ``FAMILY_BASE_URL`` (the
#: presets' ``env_prefix`` families among them). ``GITHUB_TOKEN``, ``AWS_*`` and the like are
#: no provider of an OpenAI-compatible gateway and stay.
FAMILIES = (
    "OPENAI", "AZURE_OPENAI", "ANTHROPIC", "GEMINI", "GOOGLE", "DEEPSEEK", "OPENROUTER",
    "MISTRAL", "GROQ", "TOGETHER", "FIREWORKS", "COHERE", "CO", "XAI", "PERPLEXITY",
    "DASHSCOPE", "MOONSHOT", "ZHIPUAI", "TAOTOKEN",
)  # fmt: skip


def family_of(name: str) -> str | None:
    """``OPENAI`` of ``OPENAI_API_KEY`` or ``OPENAI_BASE_URL``: the prefix before a key or base
    URL suffix (the longest suffix that fits), else None."""
    for suffix in (*URL_SUFFIXES, *CREDENTIAL_SUFFIXES):
        if name.endswith(f"_{suffix}") and len(name) > len(suffix) + 1:
            return name[: -len(suffix) - 1]
    return None


def others(
    env: Mapping[str, str], own: Iterable[str], families: Iterable[str] = ()
) -> tuple[str, ...]:
    """The names in ``env`` of another provider's key or base URL, sorted: their family is one
    of :data:`FAMILIES` or ``families`` (the user's profiles' ``env_prefix``) and not in
    ``own`` (the families whose variables the profile gives the command)."""
    mine = {family.upper() for family in own}
    foreign = {*FAMILIES, *(family.upper() for family in families)} - mine
    return tuple(sorted(name for name in env if family_of(name) in foreign))


def own_families(names: Iterable[str]) -> set[str]:
    """The families of the variables a profile sets (``OPENAI`` of ``OPENAI_MODEL`` too)."""
    out = {family for name in names if (family := family_of(name))}
    out |= {name.removesuffix("_MODEL") for name in names if name.endswith("_MODEL")}
    return out


def profile_families(names: Iterable[str], key_env: str | None, env_prefix: object) -> set[str]:
    """The families a profile owns: those of the variables it gives the command, of the
    variable it reads its own key from (``key_env = "DEEPSEEK_API_KEY"``: the scrub took the
    profile's own key away, and the next ``env`` found none) and its ``env_prefix``."""
    own = own_families(names)
    if key_env and (family := family_of(key_env)):
        own.add(family)
    if isinstance(env_prefix, str) and env_prefix:
        own.add(env_prefix.upper())
    return own


def scrubbed(
    env: Mapping[str, str], own: set[str], families: Iterable[str], key: str
) -> tuple[str, ...]:
    """:func:`others`, less any variable holding the profile's own ``key`` (whatever its name:
    the rule ``execenv.cleared`` keeps too): what the scrub takes out."""
    return tuple(name for name in others(env, own, families) if env[name] != key)
