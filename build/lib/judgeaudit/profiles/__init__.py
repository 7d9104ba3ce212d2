"""Tool profiles: the profile model and store, keyring secrets, per-app targets (Claude Code,
Codex, SDK environment), the switching transaction, backups and importers."""
