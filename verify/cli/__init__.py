"""The command line: parses arguments, chooses the profile, the executor and the outputs, and
presents what the layers below computed; it computes nothing itself.  May import every other
package of ``verify``; nothing imports it.  ``app`` holds the parser and the run commands,
``certified`` the certificate commands, ``regression`` explain/deps/slack/diff."""
from .app import main

__all__ = ["main"]
