"""Entry point of the `exanet` command: loading the command line takes a second (pandas,
pyarrow, the core), and a Ctrl-C then ends it like a Ctrl-C during a run, without a traceback."""

from __future__ import annotations

import sys

from exanet.exit_codes import EXIT_INTERRUPTED


def main() -> None:
    try:
        from exanet.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
    cli_main()
