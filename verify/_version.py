"""The toolkit's version: the one place it is written (pyproject.toml reads it from here).

Bump it when the report's format or a check's meaning changes (see CHANGELOG.md).
"""
__version__ = "0.3.0"
