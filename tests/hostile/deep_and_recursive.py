"""Deeply nested and self-containing lists."""


def logits(table, hidden):
    deep = []
    for _ in range(200_000):
        deep = [deep]
    return deep


def shape(matrix):
    if len(matrix) > 1 and len(matrix[0]) > 1:
        a = []
        a.append(a)
        return a
    return (len(matrix), len(matrix[0]) if matrix else 0)
