"""The embedded OpenAI-compatible provider whose models are documented simulations.

Nothing here imports the audit layer: the simulated models understand the canonical phrasing of
the built-in retail domain through their own small grammar (`intents`), just as a real model
understands it through language.
"""
