"""Build the C solver core and the logical solver's unit scans; everything else is configured in
pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sudoku_lens.solve._core",
            sources=["src/sudoku_lens/solve/_core.c"],
            extra_compile_args=["-O3", "-std=c99"],
        ),
        Extension(
            "sudoku_lens.logic._scan",
            sources=["src/sudoku_lens/logic/_scan.c"],
            extra_compile_args=["-O3", "-std=c99"],
        ),
    ]
)
