"""`python -m exanet`: the command-line interface."""

from exanet.launcher import main

main()
