"""``python -m netsim_fast`` runs the CLI."""

from netsim_fast.cli import main

main()
