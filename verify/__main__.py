"""``python -m verify`` runs the command line (the same as the ``verify`` command)."""
from .cli import main

raise SystemExit(main())
