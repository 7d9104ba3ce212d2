#!/usr/bin/env bash
# Run "$@" inside a private D-Bus session with a fresh, unlocked gnome-keyring (Secret Service).
# The keyring lives in a temp dir and every daemon of it is killed when the command ends.
# If the daemon dies mid-run (killed from outside, or crashed), D-Bus starts it again from this
# session's own service file, unlocked with the same password: the system's service file would
# start a locked keyring that asks for a password through a prompt no CI machine can show, and
# every keyring test after that would fail.
set -euo pipefail
if [ -z "${JUDGEAUDIT_PRIVATE_DBUS:-}" ]; then
  export JUDGEAUDIT_PRIVATE_DBUS=1
  keyring_home=$(mktemp -d)
  export JUDGEAUDIT_KEYRING_HOME="$keyring_home"
  # Set before the bus starts: the bus reads its service files from $XDG_DATA_HOME/dbus-1.
  export XDG_DATA_HOME="$keyring_home/data" XDG_CONFIG_HOME="$keyring_home/config"
  export XDG_RUNTIME_DIR="$keyring_home/run" XDG_CACHE_HOME="$keyring_home/cache"
  mkdir -p "$XDG_DATA_HOME/dbus-1/services" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR" "$XDG_CACHE_HOME"
  chmod 700 "$keyring_home" "$XDG_RUNTIME_DIR"
  # A non-empty password creates and unlocks the login keyring (an empty one fails). It is a
  # throwaway test keyring's, kept in the private temp dir, never in argv.
  (umask 077 && printf '%s' "judgeaudit-ci-$$-$RANDOM$RANDOM" > "$keyring_home/password")
  cat > "$XDG_DATA_HOME/dbus-1/services/org.freedesktop.secrets.service" <<EOF
[D-BUS Service]
Name=org.freedesktop.secrets
Exec=/bin/sh -c 'exec gnome-keyring-daemon --foreground --unlock --components=secrets < "$keyring_home/password"'
EOF
  exec dbus-run-session -- "$0" "$@"
fi
keyring_home="$JUDGEAUDIT_KEYRING_HOME"
daemon_env=$(gnome-keyring-daemon --unlock --components=secrets < "$keyring_home/password")
if [ -n "$daemon_env" ]; then eval "export $daemon_env"; fi
# Our daemons are those whose environment holds our private runtime dir (other keyring sessions
# may run beside this one: parallel test runs must not kill each other's daemon).
our_daemons() {
  for pid in $(pgrep -f "gnome-keyring-daemon" || true); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"; then
      echo "$pid"
    fi
  done
}
# A daemon told to stop may still write its sockets into run/ for a moment, so `rm -rf` of the
# keyring dir could fail ("Directory not empty") and turn a passing run's exit status into 1:
# wait (at most 5 s) for our daemons to be gone, retry the removal once, and never let the
# clean-up change the command's status (a leftover dir is named on stderr).
cleanup() {
  local pids alive
  pids=$(our_daemons)
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0
    for pid in $pids; do if kill -0 "$pid" 2>/dev/null; then alive=1; fi; done
    if [ "$alive" = 0 ]; then break; fi
    sleep 0.1
  done
  rm -rf "$keyring_home" 2>/dev/null || { sleep 1; rm -rf "$keyring_home" 2>/dev/null; } \
    || echo "with-keyring.sh: could not remove the test keyring dir $keyring_home" >&2
}
trap cleanup EXIT
export JUDGEAUDIT_SECRET_SERVICE=1
"$@"
