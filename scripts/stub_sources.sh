#!/usr/bin/env bash
# Stub sources for Dockerfile.lint's dependency layer. With only the workspace's manifests and
# Cargo.lock in the folder, writes a file where each target of each manifest goes (the `path`
# it names, or cargo's default for its kind and name): empty for a library, `fn main() {}` for
# the rest. Cargo can then load the workspace and fetch and build the dependencies before the
# sources are copied in. Files already there are left alone; each file written is printed, one
# a line, so the layer can remove them after its build.
#   scripts/stub_sources.sh [DIR]   (DIR: the workspace's root; default: the working folder)
set -euo pipefail
cd "${1:-.}"

# `KIND PATH` for each target of the manifest on stdin: lib, bin, bench, test, example; one
# `lib src/lib.rs` for a manifest that declares no library or binary (cargo would find them).
targets() {
  awk '
    function flush() {
      if (kind == "") return
      if (path == "") {
        if (kind == "lib") path = "src/lib.rs"
        else if (kind == "bin") path = (name == package || name == "") ? "src/main.rs" : "src/bin/" name ".rs"
        else if (kind == "bench") path = "benches/" name ".rs"
        else if (kind == "test") path = "tests/" name ".rs"
        else path = "examples/" name ".rs"
      }
      if (kind == "lib" || kind == "bin") declared = 1
      print kind, path
      kind = ""
    }
    function value(line) {
      sub(/^[^=]*=[ \t]*"/, "", line)
      sub(/".*$/, "", line)
      return line
    }
    /^[ \t]*\[/ {
      flush()
      section = $0
      gsub(/[ \t\[\]]/, "", section)
      name = ""; path = ""
      if (section == "lib" || section == "bin" || section == "bench" || section == "test" || section == "example") kind = section
      next
    }
    section == "package" && /^[ \t]*name[ \t]*=/ { package = value($0) }
    kind != "" && /^[ \t]*name[ \t]*=/ { name = value($0) }
    kind != "" && /^[ \t]*path[ \t]*=/ { path = value($0) }
    END {
      flush()
      if (!declared) print "lib", "src/lib.rs"
    }
  '
}

find . -name Cargo.toml -not -path './target/*' | sort | while read -r manifest; do
  dir=$(dirname "$manifest")
  targets <"$manifest" | while read -r kind path; do
    file="${dir#./}/$path"
    file="${file#./}"
    [ -e "$file" ] && continue
    mkdir -p "$(dirname "$file")"
    if [ "$kind" = lib ]; then
      : >"$file"
    else
      echo 'fn main() {}' >"$file"
    fi
    echo "$file"
  done
done
