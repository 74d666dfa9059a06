"""NaN, an int with about a million digits and 1e308 where plain numbers are due."""


def dot(a, b):
    return float("nan")


def tied_params(vocab, dim):
    return 1 << 3_000_000


def rms(vec):
    return 1e308
