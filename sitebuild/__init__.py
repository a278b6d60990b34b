"""The parts of build.py, one concept per module; build.py runs them in order."""
