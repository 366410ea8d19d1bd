#!/usr/bin/env bash
# Installs exanet with its test tools, then runs every check: formatting and lints (Rust and
# Python), the Rust test suite and the Python test suite. This is the README's test command and
# exactly what CI runs (.ci/run).
#
# What it installs: headless Chromium through apt-get when no `chromium` is on PATH (with sudo
# unless run as root), and exanet with its test extras ('.[test]': pytest, hypothesis, ruff,
# mpi4py with MPICH, submitit, dask, otf2) into the Python that `python3` is: the active virtual
# environment's when one is active. Everything Python runs through that same interpreter.
# pyproject.toml allows compatible ranges; constraints.txt pins the exact versions CI tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# headless Chromium renders the HTML report in tests/python/test_plots_report.py
if ! command -v chromium >/dev/null; then
    if command -v apt-get >/dev/null; then
        sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends chromium
    else
        echo "scripts/test.sh: no chromium on PATH and no apt-get to install it: the test that" \
            "renders reports in Chromium will be reported as skipped; install chromium to run it" >&2
    fi
fi
echo "scripts/test.sh: testing with $(command -v python3) ($(python3 --version))"
python3 -m pip install --quiet --disable-pip-version-check -c constraints.txt '.[test]'

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test -p exanet-core --locked

python3 -m ruff format --check python tests examples scripts
python3 -m ruff check python tests examples scripts
python3 -m pytest tests/python
