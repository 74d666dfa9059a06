"""Generators, classes, modules, functions, bytes and sets as answers."""

import math as _math


def lookup(table, ids):
    return (table[i] for i in ids)


def one_hot(token_id, vocab):
    return bytes(vocab)


def untied_params(vocab, dim):
    return int


def norm(vec):
    return _math


def rms(vec):
    return rms


def nearest_by_dot(table, token_id, k):
    return set(range(k))
