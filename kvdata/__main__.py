"""`python -m kvdata` runs the same CLI as the `kvdata` command."""
from kvdata.cli import main

main()
