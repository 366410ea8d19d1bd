"""`python -m exanet`: the command-line interface."""

from exanet.cli import main

main()
