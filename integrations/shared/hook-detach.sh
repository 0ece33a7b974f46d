#!/bin/sh
# PowerContext's Stop hook on POSIX hosts: `sh hook-detach.sh NODE HOOK_SCRIPT`, the host's payload
# on stdin. It does what `node HOOK_SCRIPT --detach` does without starting Node on the host's turn:
# the payload goes to a private file (0600, made by mktemp in the 0700 directory `pending/` of the
# hooks' state directory) and a detached `NODE HOOK_SCRIPT --worker FILE` does the work after the
# turn has ended. When the payload cannot be handed over it runs at once instead. Fails open: it
# always exits 0 and prints nothing (never the payload).
node=$1
script=$2
umask 077
command -v "$node" >/dev/null 2>&1 || exit 0

run_now() {
  "$node" "$script" || :
  exit 0
}

# The hooks' state directory, as integrations/shared/session-state.mjs derives it; a value with
# blanks at either end is left to Node (it trims them).
blank_ends() {
  case $1 in [[:space:]]* | *[[:space:]]) return 0 ;; esac
  return 1
}
if [ -n "${POWERCONTEXT_HOOKS_STATE_DIR-}" ]; then
  base=$POWERCONTEXT_HOOKS_STATE_DIR
elif [ -n "${XDG_STATE_HOME-}" ]; then
  case $XDG_STATE_HOME in /*) base=$XDG_STATE_HOME/powercontext/hook-sessions ;; *) run_now ;; esac
else
  base=${HOME-}/.local/state/powercontext/hook-sessions
  [ -n "${HOME-}" ] || run_now
fi
case $base in /*) ;; *) run_now ;; esac
blank_ends "$base" && run_now

dir=$base/pending
[ -d "$dir" ] || mkdir -p -m 700 "$dir" 2>/dev/null || run_now
[ -d "$dir" ] && [ -O "$dir" ] && [ ! -L "$dir" ] || run_now
chmod 700 "$dir" 2>/dev/null || run_now
file=$(mktemp "$dir/stop.XXXXXXXXXX" 2>/dev/null) || run_now
[ -n "$file" ] || run_now

# A payload larger than the hooks read (4 MiB) is cut: the worker then finds no valid payload.
if ! head -c 4194305 >"$file" 2>/dev/null; then
  rm -f "$file"
  exit 0
fi

# The worker in its own session where setsid exists, its output nowhere (the host waits for the
# hook's pipes to close); payload files older than an hour that no worker took are removed first.
(
  find "$dir" -type f -name 'stop.*' -mmin +60 -exec rm -f {} + 2>/dev/null
  if command -v setsid >/dev/null 2>&1; then
    exec setsid "$node" "$script" --worker "$file"
  fi
  exec nohup "$node" "$script" --worker "$file"
) </dev/null >/dev/null 2>&1 &
exit 0
