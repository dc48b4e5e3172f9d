#!/bin/sh
# gen.sh rebuilds the cases in this directory from a real git: for each case
# it commits the files of before/, makes the change, and saves the output of
# "git diff --cached -M" as patch.diff and the changed files as after/.
# Run it from anywhere: sh testdata/git/gen.sh
set -eu
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z
mkdir -p "$HOME"
git config --global user.name gen
git config --global user.email gen@example.com
git config --global init.defaultBranch main
git config --global core.autocrlf false

lines() { i=1; while [ "$i" -le "$1" ]; do echo "line $i"; i=$((i+1)); done; }

# start NAME: a fresh repository for case NAME; the caller creates the
# files, then calls snap, changes them, then calls finish.
start() {
	name=$1
	repo="$work/$name"
	rm -rf "$repo" && mkdir -p "$repo" && cd "$repo" && git init -q .
}
# copy DIR REV copies the files of REV (HEAD, or "" for the index) into
# the case's DIR.
copy() {
	git -c core.quotepath=off ls-tree -r --name-only "${2:-HEAD}" | while IFS= read -r f; do
		mkdir -p "$out/$name/$1/$(dirname "$f")" && git show "$2:$f" > "$out/$name/$1/$f"
	done
}
snap() { git add -A && git commit -qm before --allow-empty; }
# finish [OPTION...] stages the change and saves the case: the diff, with
# git diff's OPTIONs (-M when none are given), and the files.
finish() {
	[ $# -gt 0 ] || set -- -M
	git add -A
	rm -rf "$out/$name" && mkdir -p "$out/$name"
	git diff --cached "$@" > "$out/$name/patch.diff"
	copy before HEAD
	copy after "$(git write-tree)"
}
# rewrite NAME FILE BEFORE AFTER is case NAME where the one file FILE
# changes from BEFORE to AFTER (each a printf format, so \n and \ooo work).
rewrite() {
	start "$1"
	printf "$3" > "$2"; snap
	printf "$4" > "$2"; finish
}

start modify
lines 40 > a.txt; snap
sed -i -e 's/^line 3$/line three/' -e '/^line 20$/d' -e 's/^line 38$/line 38\nline 38.5/' a.txt; finish

start rename_modify
lines 30 > old.txt; snap
git mv old.txt new.txt; sed -i 's/^line 15$/line fifteen/' new.txt; finish

start rename_pure
mkdir d; lines 5 > d/x.txt; snap
mkdir e; git mv d/x.txt e/y.txt; finish

start new_file
echo keep > keep.txt; snap
mkdir -p sub; lines 3 > sub/new.txt; finish

start new_empty
echo keep > keep.txt; snap
: > empty.txt; finish

start delete
lines 4 > gone.txt; echo keep > keep.txt; snap
git rm -q gone.txt; finish

rewrite noeol_append f.txt 'a\nb' 'a\nb\nc\n'
rewrite noeol_drop f.txt 'a\nb\n' 'a\nB'
rewrite noeol_both f.txt 'a\nb\nc' 'a\nb\nC'
rewrite crlf w.txt 'one\r\ntwo\r\nthree\r\nfour\r\n' 'one\r\n2\r\nthree\r\nfour\r\nfive\r\n'

start multi
lines 10 > m.txt; lines 3 > del.txt; snap
sed -i 's/^line 5$/line five/' m.txt; git rm -q del.txt; echo hello > add.txt; finish

start space_name
mkdir -p 'my dir'; lines 3 > 'my dir/a file.txt'; snap
sed -i 's/^line 2$/line two/' 'my dir/a file.txt'; finish

rewrite quoted_name "$(printf 'caf\303\251.txt')" 'x\n' 'y\n'

start mode_and_content
printf '#!/bin/sh\necho hi\n' > run.sh; printf 'only mode\n' > m.sh; snap
chmod +x run.sh m.sh; printf '#!/bin/sh\necho hello\n' > run.sh; finish

rewrite bom b.txt '\357\273\277first\nsecond\n' '\357\273\277first\nsecond!\n'

start zero_context
lines 12 > z.txt; snap
sed -i -e 's/^line 2$/line two/' -e 's/^line 11$/line eleven/' z.txt; finish -U0
