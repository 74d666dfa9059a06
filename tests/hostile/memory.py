"""logits asks for 100 GB at once; vocab_growth grows a list until memory runs out."""


def logits(table, hidden):
    return bytearray(10**11)


def vocab_growth(vocab, dim, factor):
    grow = []
    while True:
        grow += [0] * 1_000_000
