#!/usr/bin/env bash
# A Python virtual environment at DIR holding the packages pinned in REQUIREMENTS, from PyPI,
# made again only when REQUIREMENTS has changed since it was made:
#
#   scripts/pyenv.sh DIR REQUIREMENTS
#
# Made with uv (pinned in scripts/uv-requirements.txt, installed by pip into target/uv once):
# for the test tools pip took about 29 CPU-seconds, uv with its own start about 7
# (docs/measurements.md), while the test command's build wants both cores. The test command
# makes two environments side by side; they share one uv, installed under a lock.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
requirements=$2

if [ -x "$dir/bin/python" ] && cmp -s "$requirements" "$dir/requirements.txt"; then
  exit 0
fi
UV_HOME=target/uv
mkdir -p target
(
  flock 9
  pinned=scripts/uv-requirements.txt
  if [ ! -x "$UV_HOME/bin/uv" ] || ! cmp -s "$pinned" "$UV_HOME/requirements.txt"; then
    echo "uv: PyPI → $UV_HOME"
    rm -rf "$UV_HOME"
    python3 -m venv "$UV_HOME"
    "$UV_HOME/bin/pip" install -q --disable-pip-version-check -r "$pinned"
    cp "$pinned" "$UV_HOME/requirements.txt"
  fi
) 9>target/uv.lock
echo "python packages: PyPI → $dir"
rm -rf "$dir"
"$UV_HOME/bin/uv" venv -q --python "$(command -v python3)" "$dir"
# The system's certificate store, as pip is given it (PIP_CERT) where PyPI is reached
# through a proxy of the machine's own.
VIRTUAL_ENV="$dir" "$UV_HOME/bin/uv" pip install -q --native-tls -r "$requirements"
cp "$requirements" "$dir/requirements.txt"
