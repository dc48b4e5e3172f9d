#!/usr/bin/env bash
# Reliability of ws patch on real changes: each of the last N commits of
# this repository (git history needed: a full clone) is applied to its
# parent's tree with ws patch, and the result compared with the commit's
# tree, byte for byte. Three forms of each change:
#   unified   git diff, 3 lines of context
#   unified0  git diff -U0 (no context: line numbers only)
#   codex     the same hunks in Codex's envelope, no line numbers, bare @@
#   anchored  Codex's envelope with git's function line as each hunk's @@
#             (git names the nearest line above the hunk that looks like a
#             function, cut at 80 bytes: harder than what a model writes)
# Each change ends as landed (the tree is the commit's), refused (ws patch
# failed and changed nothing: binary files, ambiguous context, an @@ line
# not found), or WRONG (ws patch succeeded and the tree differs). The
# target is no WRONG at all. Changes with binary files, a missing final
# newline or lines ending in CR are skipped for the Codex forms, which
# cannot carry them.
#   bench/patch_corpus.sh            # N=150 FORMS="unified codex" to choose
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "bench/patch_corpus.sh needs python3" >&2; exit 1; }
N=${N:-150}
FORMS=${FORMS:-unified unified0 codex anchored}
mkdir -p bench/out
CGO_ENABLED=0 go build -o bench/out/ws .
ws="$PWD/bench/out/ws"
repo="$PWD"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tocodex: a git diff on stdin to Codex's envelope on stdout; exit 3 when
# the diff has what the envelope cannot say. With --anchor, git's function
# line after each @@ becomes the hunk's @@ line.
cat >"$work/tocodex.py" <<'PY'
import re, sys
files, cur = [], None
for l in sys.stdin.read().split('\n')[:-1]:
    if l.startswith('diff --git '):
        cur = {'new': False, 'del': False, 'a': None, 'b': None, 'hunks': []}
        files.append(cur)
    elif cur is None:
        continue
    elif l.startswith(('Binary files', 'GIT binary')) or l.startswith('\\'):
        sys.exit(3)
    elif cur['hunks'] and l[:1] in (' ', '+', '-'):
        if l.endswith('\r'):
            sys.exit(3)  # a line's own CR: Codex's envelope cannot carry it (its parsers drop it)
        cur['hunks'][-1][1].append(l)
    elif l.startswith('new file mode'):
        cur['new'] = True
    elif l.startswith('deleted file mode'):
        cur['del'] = True
    elif l.startswith('--- '):
        cur['a'] = None if l == '--- /dev/null' else l[6:]
    elif l.startswith('+++ '):
        cur['b'] = None if l == '+++ /dev/null' else l[6:]
    elif l.startswith('rename from '):
        cur['a'] = l[12:]
    elif l.startswith('rename to '):
        cur['b'] = l[10:]
    elif l.startswith('@@'):
        cur['hunks'].append((re.match(r'@@ -\S+ \+\S+ @@ ?(.*)', l).group(1), []))
out = ['*** Begin Patch']
for f in files:
    if f['new']:
        out.append('*** Add File: ' + f['b'])
        out += [b for _, body in f['hunks'] for b in body]
    elif f['del']:
        out.append('*** Delete File: ' + f['a'])
    else:
        out.append('*** Update File: ' + f['a'])
        if f['b'] and f['b'] != f['a']:
            out.append('*** Move to: ' + f['b'])
        for anchor, body in f['hunks']:
            out.append('@@ ' + anchor if anchor and '--anchor' in sys.argv else '@@')
            out += body
out.append('*** End Patch')
print('\n'.join(out))
PY

commits=$(git -C "$repo" rev-list --no-merges -n "$N" HEAD)
for form in $FORMS; do
  landed=0 refused=0 wrong=0 skipped=0
  for c in $commits; do
    git -C "$repo" rev-parse -q --verify "$c^" >/dev/null || continue
    d="$work/$form-$c"
    mkdir -p "$d/old" "$d/new" "$d/state"
    case $form in
      unified) git -C "$repo" diff --no-color "$c^" "$c" >"$d/patch" ;;
      unified0) git -C "$repo" diff --no-color -U0 "$c^" "$c" >"$d/patch" ;;
      codex | anchored)
        opt=; [ "$form" = anchored ] && opt=--anchor
        if ! git -C "$repo" diff --no-color "$c^" "$c" | python3 "$work/tocodex.py" $opt >"$d/patch"; then
          skipped=$((skipped + 1)); rm -rf "$d"; continue
        fi ;;
    esac
    git -C "$repo" archive "$c^" | tar -x -C "$d/old"
    git -C "$repo" archive "$c" | tar -x -C "$d/new"
    cp -a "$d/old" "$d/before"
    if (cd "$d/old" && WS_ROOT="$d/old" WS_STATE_DIR="$d/state" "$ws" patch "$d/patch" >"$d/out" 2>&1); then
      if diff -r "$d/old" "$d/new" >/dev/null; then
        landed=$((landed + 1))
      else
        wrong=$((wrong + 1)); echo "WRONG $form $c"
      fi
    elif diff -r "$d/old" "$d/before" >/dev/null; then
      refused=$((refused + 1))
    else
      wrong=$((wrong + 1)); echo "WRONG $form $c: failed and left files changed"
    fi
    rm -rf "$d"
  done
  echo "$form: $landed landed, $refused refused, $wrong wrong, $skipped skipped"
done
