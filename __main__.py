"""Reached only by ``python -m boardsim`` run from the folder *above* a clone of this repository named
``boardsim``: Python then reads the clone's top folder as the package instead of the package inside it
(``boardsim/boardsim/``).  Say so in one line instead of an ImportError.  (Inside the clone, or anywhere
once it is installed, ``python -m boardsim`` runs ``boardsim/__main__.py``, never this file.)"""

import sys

sys.stderr.write(
    "error: boardsim: this folder holds a clone of the repository named 'boardsim', which Python reads in "
    "place of the package; run the command from inside the clone (cd boardsim), or install it "
    "(python3 -m pip install -e boardsim) and run it from another folder\n")
sys.exit(2)
