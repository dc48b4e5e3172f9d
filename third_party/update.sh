#!/usr/bin/env bash
# Remakes a module kept in third_party/ from the version go.mod requires:
# copies its non-test sources from the Go module cache and applies
# third_party/patches/NAME.patch, then gofmt. Run it after changing that version.
#   third_party/update.sh regexp2|yaml
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
regexp2) mod=github.com/dlclark/regexp2/v2 keep='LICENSE ATTRIB go.mod *.go helpers/*.go syntax/*.go' ;;
yaml) mod=go.yaml.in/yaml/v3 keep='LICENSE NOTICE go.mod *.go' ;;
*) echo "usage: third_party/update.sh regexp2|yaml" >&2; exit 2 ;;
esac
name=$1
ver=$(go list -m -f '{{.Version}}' "$mod")
go mod download "$mod@$ver"
src=$(go env GOMODCACHE)/$mod@$ver
dst=third_party/$name
rm -rf "$dst"
mkdir -p "$dst"
(cd "$src" && for f in $keep; do [ -e "$f" ] || continue; case "$f" in *_test.go) continue ;; esac
  mkdir -p "$OLDPWD/$dst/$(dirname "$f")"; cp "$f" "$OLDPWD/$dst/$f"; done)
chmod -R u+w "$dst"
git apply --directory="$dst" "third_party/patches/$name.patch"
gofmt -w "$dst" # the patches leave the indentation of what they wrap to gofmt
echo "$dst: $mod $ver with patches/$name.patch"
