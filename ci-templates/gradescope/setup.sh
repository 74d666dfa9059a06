#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
# It installs Python 3 when the image lacks a recent one, then the grader from the
# wheel that sits beside this script, in a virtual environment of its own.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="${AUTOGRADER_ROOT:-/autograder}"
venv="$root/embed-grader-venv"

recent() {
    command -v python3 >/dev/null 2>&1 &&
        python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' &&
        python3 -c 'import ensurepip, venv' >/dev/null 2>&1
}

if ! recent; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends python3 python3-venv python3-pip
fi

python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "$here"/embed_grader-*.whl
"$venv/bin/embed-grader" --version
