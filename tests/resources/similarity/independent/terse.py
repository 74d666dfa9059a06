import json, math, os, random
VOCAB, DIM, SEED = 512, 64, 20260917
def make_table(v, d, s):
    r = random.Random(s); return [[r.random() - .5 for _ in range(d)] for _ in range(v)]
def shape(m):
    w = {len(x) for x in m}
    if len(w) > 1: raise ValueError('ragged')
    return (len(m), w.pop() if w else 0)
def param_count(v, d): return v * d
def _ok(t, i):
    if not -1 < i < len(t): raise IndexError(i)
def lookup(t, ids):
    for i in ids: _ok(t, i)
    return [t[i][:] for i in ids]
def one_hot(i, v): return [float(j == i) for j in range(v)]
def row_times_matrix(x, m):
    n, w = shape(m)
    if len(x) != n: raise ValueError('len')
    return [sum([x[r] * m[r][c] for r in range(n)], 0.0) for c in range(w)]
def lookup_via_one_hot(t, ids):
    for i in ids: _ok(t, i)
    return [row_times_matrix(one_hot(i, len(t)), t) for i in ids]
def one_hot_mults(v, d, n): return v * d * n
def logits(t, h):
    if shape(t)[1] != len(h): raise ValueError('width')
    return [dot(r, h) for r in t]
def tied_params(v, d): return v * d
def untied_params(v, d): return v * d * 2
def vocab_growth(v, d, f):
    b = v * f
    return dict(vocab=v, bigger_vocab=b, dim=d, tied=v*d, bigger_tied=b*d, untied=2*v*d, bigger_untied=2*b*d, saved=v*d)
def dot(a, b):
    s = 0.
    for x, y in zip(a, b): s += x * y
    return s
def norm(v): return math.sqrt(dot(v, v))
def cosine(a, b):
    n = norm(a) * norm(b)
    return max(-1., min(1., dot(a, b) / n)) if n else 0.
def stretch(t, i, f):
    _ok(t, i); return [[f * x for x in r] if j == i else r[:] for j, r in enumerate(t)]
def _near(t, i, k, g):
    _ok(t, i); return sorted((j for j in range(len(t)) if j != i), key=lambda j: (-g(t[i], t[j]), j))[:k]
def nearest_by_cosine(t, i, k): return _near(t, i, k, cosine)
def nearest_by_dot(t, i, k): return _near(t, i, k, dot)
def rms(v): return math.sqrt(dot(v, v) / len(v)) if v else 0.
def scaled_lookup(t, ids, d): return [[x * math.sqrt(d) for x in r] for r in lookup(t, ids)]
def measure():
    t = make_table(VOCAB, DIM, SEED); p = 137
    c, d = nearest_by_cosine(t, p, 5), nearest_by_dot(t, p, 5)
    s = stretch(t, c[4], 4.)
    row = t[p]; big = scaled_lookup(t, [p], DIM)[0]; lg = logits(t, row)
    return {'table_shape': [VOCAB, DIM], 'one_hot_mults': one_hot_mults(VOCAB, DIM, 1), 'lookup_mults': 0,
            'max_abs_diff': max(abs(a - b) for a, b in zip(row, lookup_via_one_hot(t, [p])[0])),
            'logit_argmax': lg.index(max(lg)), 'cos_neighbors': c, 'dot_neighbors': d,
            'neighbors_differ': c != d, 'cos_after_stretch': nearest_by_cosine(s, p, 5),
            'dot_after_stretch': nearest_by_dot(s, p, 5), 'rms_plain': rms(row), 'rms_scaled': rms(big),
            'rms_ratio': rms(big) / rms(row), 'cos_unchanged_by_scale': abs(cosine(row, big) - 1) < 1e-12}
def write_report(outdir='.'):
    os.makedirs(outdir, exist_ok=True); m = measure()
    open(os.path.join(outdir, 'embed_report.json'), 'w').write(json.dumps(m))
    return m
