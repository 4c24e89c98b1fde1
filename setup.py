"""Build hook (metadata lives in pyproject.toml): the wheel carries the default constants.

``proofs/constants.toml`` is the one source of the constants; users edit it in a checkout.  An
installed package has no ``proofs/`` folder, so building copies that file into the package as
``verify/data/constants.toml``, which :func:`verify.constants.default_source` reads with
``importlib.resources`` when the package does not run from a checkout.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SOURCE = Path("proofs") / "constants.toml"
PACKAGED = Path("verify") / "data" / "constants.toml"


class BuildWithConstants(build_py):
    """``build_py`` that also writes the default constants into the built package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / PACKAGED
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCE, target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PACKAGED)]


setup(cmdclass={"build_py": BuildWithConstants})
