"""``python -m verify`` runs the command line (the same as the ``verify`` command)."""
from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
