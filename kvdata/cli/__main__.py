"""`python -m kvdata.cli` runs the same CLI as the `kvdata` command."""
from kvdata.cli import main

main()
