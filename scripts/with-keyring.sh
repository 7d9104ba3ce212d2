#!/usr/bin/env bash
# Run "$@" inside a private D-Bus session with a fresh, unlocked gnome-keyring (Secret Service).
# The keyring lives in a temp dir and the daemon is killed by PID when the command ends.
set -euo pipefail
if [ -z "${JUDGEAUDIT_PRIVATE_DBUS:-}" ]; then
  export JUDGEAUDIT_PRIVATE_DBUS=1
  exec dbus-run-session -- "$0" "$@"
fi
keyring_home=$(mktemp -d)
export XDG_DATA_HOME="$keyring_home/data" XDG_CONFIG_HOME="$keyring_home/config"
export XDG_RUNTIME_DIR="$keyring_home/run" XDG_CACHE_HOME="$keyring_home/cache"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR" "$XDG_CACHE_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
# A non-empty password on stdin creates and unlocks the login keyring (an empty one fails).
daemon_env=$(printf '%s' "judgeaudit-ci-$$-$RANDOM" | gnome-keyring-daemon --unlock --components=secrets)
if [ -n "$daemon_env" ]; then eval "export $daemon_env"; fi
# Our daemon is the one whose environment holds our private runtime dir (other keyring sessions
# may run beside this one: parallel test runs must not kill each other's daemon).
daemon_pid=""
for pid in $(pgrep -f "gnome-keyring-daemon --unlock" || true); do
  if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"; then
    daemon_pid=$pid
  fi
done
cleanup() {
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null || true
  rm -rf "$keyring_home"
}
trap cleanup EXIT
export JUDGEAUDIT_SECRET_SERVICE=1
"$@"
