"""Exit codes of the `exanet` command (README.md lists them)."""

EXIT_INVALID = 2
EXIT_DEADLOCK = 3
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug in exanet, not in the input
EXIT_INTERRUPTED = 130
