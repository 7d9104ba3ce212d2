"""A loopback bridge: Responses API and Anthropic Messages in, Chat Completions out.

Codex only speaks the Responses API and Claude Code only Anthropic Messages; many gateways serve
only ``/v1/chat/completions``. The bridge translates each request into one chat completion to the
profile's upstream (with the profile's keyring key) and translates the reply back, streamed or
not. The translation modules are pure (dicts and bytes in, dicts and bytes out); ``server`` and
``upstream`` do the I/O.
"""
