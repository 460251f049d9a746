"""The results fingerprint the engines' fingerprint tests share: a digest of every result array."""

import hashlib

import numpy as np


def result_digest(result: dict) -> str:
    """16 hex digits of sha256 over each array's name, dtype and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(result):
        arr = np.ascontiguousarray(result[name])
        h.update(name.encode())
        h.update(str(arr.dtype).encode())
        h.update(arr.tobytes())
    return h.hexdigest()[:16]
