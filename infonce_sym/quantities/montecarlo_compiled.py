"""Compiled (numba) kernels of the sphere Monte Carlo: sampler and accumulator fused.

Imported only when numba is installed (``pip install "infonce-sym[fast]"``);
``montecarlo.py`` chooses this backend automatically and falls back to NumPy.

Streams.  Each work unit (a block of tuples and one segment of their negatives,
fixed by the sample index, see ``montecarlo.py``) owns a xoshiro256** generator
(Blackman and Vigna) whose 256-bit state is four words of
``SeedSequence(seed, spawn_key=(tag, block, segment)).generate_state(8, uint64)``
(computed here by ``unit_states``, the same words); words 4-7 seed the positives of
the block (segment 0 only).  A unit's draws depend
on its state only, and partial sums are merged in a fixed order, so the result does
not depend on the chunk size or on the number of threads.

Per negative: one 64-bit word gives the ziggurat layer, the sign and a 53-bit
abscissa (the tables of ``montecarlo.ziggurat_tables``, exact law of s = <x, z>, whose
layer entries are read in the scalar loop that makes the word; the 0.5 % of words that
fail the fast test take the next word for the exact test),
and one or two exponentials: e^{(s - m)/tau}, and e^{kappa (s - m)} for the search
cross-entropy.  When max(1/tau, |kappa|) <= FIXED_SHIFT_MAX (= 300) the shift is
m = 0: every term lies in [e^-300, e^300], so no row maximum is needed, and for
d >= 4 the words are consumed by 8-wide kernels written in LLVM IR (``_unit_words``:
the scalar xoshiro256** steps run in the same loop as the vector work, the few
rejected words are finished by a scalar walk; the draws, hence the sums, are those
of the plain sequential sampler ``ziggurat_fill``).  Otherwise (huge 1/tau or kappa,
or d <= 3) m is the running row maximum, terms <= 1 (a flushed term is < 1e-307 of
the sum).  The exp (``exp_core`` / ``_exp8``, the same bits) is within 1 ulp of the
correctly rounded value; ``_fast_exp`` flushes x <= -708 to 0.  The machine's limit
(``limit_uniform_exp``: one uniform and one exp per element) runs on the same machinery
at its cheapest: words drawn ahead in the same loop, one 8-wide exp per group.  The
compile is cached on disk (``cache=True``): it is paid once per machine, not per process.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
import numba
from numba import njit, prange, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

__all__ = ["numba_threads", "sphere_chunk", "sphere_chunk_serial", "merge_block_stats", "fast_exp_array", "exp8_array",
           "limit_uniform_exp", "ziggurat_fill", "wood_fill", "squeeze_table", "squeeze_decisions", "unit_states",
           "N_STATS", "exp_core", "reassoc_add"]

_U = np.uint64


def numba_threads() -> int:
    """Threads numba's parallel loops use from the calling thread."""
    return numba.get_num_threads()

_TWO_M53 = 1.0 / 9007199254740992.0
PIECE = 2048         # words per piece (a walk per piece; fixed: it orders the partial sums). 2048 rather
                     # than 512: the per-piece work (walk, sums, carried words) spread over 4x the words:
                     # all quantities 2.72 -> 2.60 ns per negative at d = 128 (one thread), the limit no slower
N_STATS = 5          # risk, sampled CE integrand, search CE, CE - risk, search CE - risk
FIXED_SHIFT_MAX = 300.0   # rows use the shift m = 0 when max(1/tau, |kappa|) <= this (terms in [e^-300, e^300])


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01     # Cody-Waite split of log 2 (fdlibm): n * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_SHIFT_BIAS = float.fromhex("0x1.8p52") + 1023.0   # x + it - it rounds x to an integer; x + it keeps
                                                   # x + 1023 (rounded) in its low bits
_NEG_LN2_HI, _NEG_LN2_LO = -_LN2_HI, -_LN2_LO
# Taylor coefficients 1/j!, j = 2..13: relative truncation error < 6e-18 on |r| <= log(2)/2
_E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10, _E11, _E12, _E13 = (1.0 / math.factorial(j) for j in range(2, 14))


@intrinsic
def _bits_as_float(typingctx, x):
    """Reinterpret an int64 as a float64 (a bitcast, vectorisable)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return sig, codegen


@intrinsic
def _float_bits(typingctx, x):
    """Reinterpret a float64 as an int64 (a bitcast, vectorisable)."""
    sig = types.int64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return sig, codegen


@intrinsic
def reassoc_add(typingctx, a, b):
    """a + b with LLVM's ``reassoc`` flag only: lets a loop's sum be vectorised (the order of a
    vectorised sum is fixed by the code, so the result stays reproducible) without allowing
    LLVM to reassociate anything else (the exp below relies on the order of its operations)."""
    sig = types.float64(types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fadd(args[0], args[1], flags=("reassoc", "contract"))
    return sig, codegen


@njit(inline="always", fastmath={"contract"}, cache=True)
def exp_core(x):
    """e^x for |x| <= 708, within 1 ulp of the correctly rounded value (error < 1 ulp of e^x);
    no branch, no table: vectorised to plain arithmetic.  2^n e^r, n = round(x / log 2),
    e^r = 1 + (r + r^2 q(r)) with q of degree 11 (Estrin), the last step one fused
    multiply-add: 2^n + 2^n (r + r^2 q)."""
    kd = x * _LOG2E + _SHIFT_BIAS       # n + 1023 in the low bits, n = round(x / log 2)
    n = kd - _SHIFT_BIAS
    r = x + n * _NEG_LN2_HI
    r = r + n * _NEG_LN2_LO
    r2 = r * r                 # Estrin: short dependency chains (the 8-wide loops overlap
    r4 = r2 * r2               # groups; their latency, not their count, is what costs)
    q0 = (_E3 * r + _E2) + (_E5 * r + _E4) * r2
    q1 = (_E7 * r + _E6) + (_E9 * r + _E8) * r2
    q2 = (_E11 * r + _E10) + (_E13 * r + _E12) * r2
    q = (q2 * r4 + q1) * r4 + q0
    tmp = r + r2 * q
    scale = _bits_as_float(_float_bits(kd) << 52)   # 2^n: the exponent field is n + 1023
    return scale + scale * tmp


@njit(inline="always", fastmath={"contract"}, cache=True)
def _fast_exp(x):
    """e^x for x <= 708 as ``exp_core``, and 0 for x <= -708 (and NaN)."""
    e = exp_core(max(x, -708.0))
    return e if x > -708.0 else 0.0


@njit(fastmath={"contract"}, cache=True)
def _exp_scaled(src, n, factor, dst):
    """dst[i] = exp(factor * src[i]) for i < n (vectorised)."""
    for i in range(n):
        dst[i] = _fast_exp(factor * src[i])


@njit(fastmath={"contract"}, cache=True)
def _exp_sum(src, n, shift, f):
    """sum exp(f (src[i] - shift)) over i < n (vectorised, no stores)."""
    a = 0.0
    for i in range(n):
        a = reassoc_add(a, _fast_exp(f * (src[i] - shift)))
    return a


@njit(fastmath={"contract"}, cache=True)
def _exp_sums3(src, n, shift, f1, f2):
    """(sum e1, sum e2, sum e2 s) over i < n, e1 = exp(f1 (s - shift)), e2 = exp(f2 (s - shift)), s = src[i]."""
    a1 = a2 = a3 = 0.0
    for i in range(n):
        v = src[i]
        t = v - shift
        e2 = _fast_exp(f2 * t)
        a1 = reassoc_add(a1, _fast_exp(f1 * t))
        a2 = reassoc_add(a2, e2)
        a3 = reassoc_add(a3, e2 * v)
    return a1, a2, a3


@njit(cache=True)
def fast_exp_array(x):
    """``_fast_exp`` over an array (for tests)."""
    out = np.empty_like(x)
    _exp_scaled(x, x.size, 1.0, out)
    return out


# ------------------------------------------------------------------ explicit 8-wide kernels
# The hot passes are written as LLVM IR on <8 x double> vectors (numba intrinsics), not left to
# LLVM's loop vectoriser: its choices (interleaving, spills) changed with the calling context
# and cost up to a factor 2.  One call handles one group of 8 words; the numba loops around
# them interleave the scalar xoshiro256** steps with the vector work of earlier groups (see
# ``_unit_words``).  The arithmetic is that of the scalar ``exp_core`` operation for operation
# (``llvm.fmuladd`` where numba's ``contract`` fuses), so both give the same bits.  On machines
# without AVX-512 LLVM splits the vectors; the results do not change.

_VF = 8
_F64, _I64, _I32, _I8, _I1 = ir.DoubleType(), ir.IntType(64), ir.IntType(32), ir.IntType(8), ir.IntType(1)
_VD, _VI, _VB = ir.VectorType(_F64, _VF), ir.VectorType(_I64, _VF), ir.VectorType(_I1, _VF)
_ZEROS = ir.Constant(ir.VectorType(_I32, _VF), [0] * _VF)


def _const(ty, v):
    return ir.Constant(ty, [v] * _VF)


def _broadcast(builder, v, ty):
    t = builder.insert_element(ir.Constant(ty, ir.Undefined), v, _I32(0))
    return builder.shuffle_vector(t, ir.Constant(ty, ir.Undefined), _ZEROS)


def _fmuladd(builder, a, b, c):
    """a b + c, fused where the machine has FMA (as numba's ``contract``)."""
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_VD, [_VD, _VD, _VD]), "llvm.fmuladd.v8f64")
    return builder.call(fn, [a, b, c])


def _exp8(builder, x):
    """``exp_core`` on 8 lanes."""
    kd = _fmuladd(builder, x, _const(_VD, _LOG2E), _const(_VD, _SHIFT_BIAS))
    n = builder.fsub(kd, _const(_VD, _SHIFT_BIAS))
    r = _fmuladd(builder, n, _const(_VD, _NEG_LN2_HI), x)
    r = _fmuladd(builder, n, _const(_VD, _NEG_LN2_LO), r)
    r2 = builder.fmul(r, r)
    r4 = builder.fmul(r2, r2)

    def pair(c0, c1, c2, c3):           # (c1 r + c0) + (c3 r + c2) r^2
        return _fmuladd(builder, _fmuladd(builder, _const(_VD, c3), r, _const(_VD, c2)), r2,
                        _fmuladd(builder, _const(_VD, c1), r, _const(_VD, c0)))
    q = _fmuladd(builder, _fmuladd(builder, pair(_E10, _E11, _E12, _E13), r4, pair(_E6, _E7, _E8, _E9)),
                 r4, pair(_E2, _E3, _E4, _E5))
    tmp = _fmuladd(builder, r2, q, r)
    scale = builder.bitcast(builder.shl(builder.bitcast(kd, _VI), _const(_VI, 52)), _VD)
    return _fmuladd(builder, scale, tmp, scale)


def _group_words(context, builder, sig, words, g, n):
    """(the 8 words of group g, the lanes < n (None: all), their uniforms (w >> 11) 2^-53)."""
    wp = context.make_array(sig.args[0])(context, builder, words).data
    base = builder.shl(g, _I64(3))
    wv = builder.load(builder.bitcast(builder.gep(wp, [base]), _VI.as_pointer()), align=8)
    valid = None
    if n is not None:
        lanes = builder.add(_broadcast(builder, base, _VI), ir.Constant(_VI, list(range(_VF))))
        valid = builder.icmp_signed("<", lanes, _broadcast(builder, n, _VI))
    u = builder.fmul(builder.sitofp(builder.lshr(wv, _const(_VI, 11)), _VD), _const(_VD, _TWO_M53))
    return wv, valid, u


def _make_zig_group(weights, full):
    @intrinsic
    def zig_group(typingctx, words, g, n, xsig, ratio, f1, f2, acc, masks, carry):
        """Group g = words[8g:8g+8] of a piece (lanes < n; all of them when ``full``), ``xsig`` and
        ``ratio`` the words' layer entries (``_fill8_tables``, indexed as the words): the
        ziggurat's fast step, masks[g] = the lanes that pass it, and acc[0:8] += e^{f1 x}
        (acc[8:16] += e^{f2 x}, acc[16:24] += e^{f2 x} x when weights) on the lanes that are
        draws (pass, and the lane before passes; before lane 0: ``carry``).  Returns the carry
        for the next group."""
        sig = types.int64(words, g, n, xsig, ratio, f1, f2, acc, masks, carry)

        def codegen(context, builder, signature, args):
            words_, g_, n_, xsig_, ratio_, f1_, f2_, acc_, masks_, carry_ = args
            xp, rp, ap, mp = [context.make_array(signature.args[i])(context, builder, args[i]).data
                              for i in (3, 4, 7, 8)]
            _, valid, u = _group_words(context, builder, signature, words_, g_, None if full else n_)
            # the layer in bits 0-9, the sign in bit 10 (xsig[j + 1024] = -xsig[j], ratio[j + 1024] = ratio[j]):
            # each word's xsig[w & 2047] and ratio[w & 1023] were read when it was made (``_fill8_tables``),
            # and x = u xsig[w & 2047] is ``_zig_word``'s x
            base = builder.shl(g_, _I64(3))
            x_layer, r_layer = [builder.load(builder.bitcast(builder.gep(ptr, [base]), _VD.as_pointer()), align=8)
                                for ptr in (xp, rp)]
            x = builder.fmul(u, x_layer)
            ok = builder.fcmp_ordered("<", u, r_layer)
            if not full:
                ok = builder.and_(ok, valid)
            okb = builder.bitcast(ok, _I8)
            keepb = builder.and_(okb, builder.or_(builder.shl(okb, _I8(1)), builder.trunc(carry_, _I8)))
            builder.store(okb, builder.gep(mp, [g_]))
            keep = builder.bitcast(keepb, _VB)
            accp = [builder.bitcast(builder.gep(ap, [_I64(8 * k)]), _VD.as_pointer()) for k in range(3)]
            a1 = builder.load(accp[0], align=8)
            e1 = _exp8(builder, builder.fmul(_broadcast(builder, f1_, _VD), x))
            builder.store(builder.select(keep, builder.fadd(a1, e1), a1), accp[0], align=8)
            if weights:
                e2 = builder.select(keep, _exp8(builder, builder.fmul(_broadcast(builder, f2_, _VD), x)), _const(_VD, 0.0))
                a2 = builder.load(accp[1], align=8)
                builder.store(builder.fadd(a2, e2), accp[1], align=8)
                a3 = builder.load(accp[2], align=8)
                builder.store(_fmuladd(builder, e2, x, a3), accp[2], align=8)
            return builder.zext(builder.lshr(okb, _I8(7)), _I64)
        return sig, codegen
    return zig_group


_zig_group_all = _make_zig_group(True, True)
_zig_group_all_part = _make_zig_group(True, False)
_zig_group_risk = _make_zig_group(False, True)
_zig_group_risk_part = _make_zig_group(False, False)


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a uint64."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return sig, codegen


def _make_uniform_group(full, exps=1):
    @intrinsic
    def uniform_group(typingctx, words, g, n, f, acc):
        """acc[0:8] += e^{-f u} for the uniforms u of group g = words[8g:8g+8] (lanes < n;
        all of them when ``full``); with exps = 2 also acc[8:16] += e^{-1.6 f u} (a second
        exponential per element, as the search cross-entropy's weights take)."""
        sig = types.void(words, g, n, f, acc)

        def codegen(context, builder, signature, args):
            words_, g_, n_, f_, acc_ = args
            base = context.make_array(signature.args[4])(context, builder, acc_).data
            _, valid, u = _group_words(context, builder, signature, words_, g_, None if full else n_)
            nf = _broadcast(builder, builder.fneg(f_), _VD)
            for i, factor in enumerate((1.0, 1.6)[:exps]):
                x = builder.fmul(nf, u) if i == 0 else builder.fmul(builder.fmul(nf, _const(_VD, factor)), u)
                e = _exp8(builder, x)
                ap = builder.bitcast(builder.gep(base, [_I64(8 * i)]), _VD.as_pointer())
                a = builder.load(ap, align=8)
                builder.store(builder.fadd(a, e) if full else builder.select(valid, builder.fadd(a, e), a), ap,
                              align=8)
            return context.get_dummy_value()
        return sig, codegen
    return uniform_group


_uniform_group = _make_uniform_group(True)
_uniform_group_part = _make_uniform_group(False)
_uniform_group2 = _make_uniform_group(True, 2)
_uniform_group2_part = _make_uniform_group(False, 2)


@intrinsic
def _exp_group(typingctx, x, g, out):
    """out[8g:8g+8] = ``_exp8``(x[8g:8g+8]) (for tests)."""
    sig = types.void(x, g, out)

    def codegen(context, builder, signature, args):
        x_, g_, out_ = args
        xp = context.make_array(signature.args[0])(context, builder, x_).data
        op = context.make_array(signature.args[2])(context, builder, out_).data
        base = builder.shl(g_, _I64(3))
        v = builder.load(builder.bitcast(builder.gep(xp, [base]), _VD.as_pointer()), align=8)
        builder.store(_exp8(builder, v), builder.bitcast(builder.gep(op, [base]), _VD.as_pointer()), align=8)
        return context.get_dummy_value()
    return sig, codegen


@njit(cache=True)
def exp8_array(x):
    """The 8-wide exp over an array whose size is a multiple of 8 (for tests)."""
    out = np.empty_like(x)
    for g in range(x.size >> 3):
        _exp_group(x, g, out)
    return out


@njit(inline="always", cache=True)
def _sum8(acc, k):
    """acc[8k] + ... + acc[8k + 7], pairwise in a fixed order."""
    b = 8 * k
    return (((acc[b] + acc[b + 1]) + (acc[b + 2] + acc[b + 3]))
            + ((acc[b + 4] + acc[b + 5]) + (acc[b + 6] + acc[b + 7])))


# ------------------------------------------------------------------ xoshiro256**
# The state is a tuple of four uint64 passed by value, so that it stays in registers.

@njit(inline="always", cache=True)
def _next(s):
    s0, s1, s2, s3 = s
    x = s1 * _U(5)
    r = ((x << _U(7)) | (x >> _U(57))) * _U(9)
    t = s1 << _U(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _U(45)) | (s3 >> _U(19))
    return r, (s0, s1, s2, s3)


@njit(inline="always", cache=True)
def _uniform(s):
    """Uniform on [0, 1), 53 bits."""
    r, s = _next(s)
    return np.float64(r >> _U(11)) * _TWO_M53, s


@njit(inline="always", cache=True)
def _load(state):
    return (state[0], state[1], state[2], state[3])


@njit(inline="always", cache=True)
def _store(s, state):
    state[0], state[1], state[2], state[3] = s


# ------------------------------------------------------------------ the law of s = <x, z>

@njit(inline="always", cache=True)
def _zig_word(r, xsig, ratio):
    """The ziggurat's fast step on one 64-bit word: (x, accepted); layer and sign in bits 0-10,
    the abscissa in bits 11-63.  ``np.int64`` before the conversion: the same value, and the
    signed conversion is a single vector instruction."""
    j = np.int64(r & _U(2047))
    u = np.float64(np.int64(r >> _U(11))) * _TWO_M53
    return u * xsig[j], u < ratio[j]


@njit(inline="always", cache=True)
def _zig_slow(r, v, x, ylo, yhi, a):
    """The exact test of a point outside the fast region: word r (layer), uniform v, abscissa x."""
    layer = np.int64(r & _U(1023))
    ax = abs(x)
    y = ylo[layer] + v * (yhi[layer] - ylo[layer])
    return ax < 1.0 and y < math.exp(a * math.log1p(-ax * ax))


@njit(inline="always", cache=True)
def _squeeze(r, v, x, ylo, yhi, sq):
    """(the exact test's answer if y is outside the band of the chord (see ``squeeze_table``),
    whether it is outside); no branch."""
    layer = np.int64(r & _U(1023))
    y = ylo[layer] + v * (yhi[layer] - ylo[layer])
    d = y - (sq[layer, 1] + sq[layer, 2] * (abs(x) - sq[layer, 0]))
    return d < 0.0, (d < -sq[layer, 3]) | (d > sq[layer, 4])


@njit(cache=True)
def squeeze_decisions(words, v, xsig, ratio, ylo, yhi, sq):
    """``_squeeze`` for points (words[i], v[i]) failing the fast test: 1 accept, 0 reject,
    -1 undecided (for tests)."""
    out = np.empty(words.size, dtype=np.int64)
    for i in range(words.size):
        x, _ = _zig_word(words[i], xsig, ratio)
        yes, decided = _squeeze(words[i], v[i], x, ylo, yhi, sq)
        out[i] = np.int64(yes) if decided else -1
    return out


@njit(inline="always", cache=True)
def _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a):
    """One draw of s, density c_d (1 - s^2)^((d-3)/2) on [-1, 1] (as SimilaritySampler)."""
    if dim == 3:
        u, s = _uniform(s)
        return 2.0 * u - 1.0, s
    if dim == 2:
        u, s = _uniform(s)
        return math.cos(math.pi * u), s
    while True:
        r, s = _next(s)
        x, ok = _zig_word(r, xsig, ratio)
        if ok:
            return x, s
        v, s = _uniform(s)
        if _zig_slow(r, v, x, ylo, yhi, a):
            return x, s


@njit(cache=True)
def _fill_similarities(s, n, buf, dim, xsig, ratio, ylo, yhi, a):
    """buf[:n] = draws of s; returns the state."""
    for i in range(n):
        x, s = _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a)
        buf[i] = x
    return s


@njit(cache=True)
def _max(a, n):
    """max(a[:n]) with 8 independent running maxima (exact whatever the order)."""
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = -np.inf
    n8 = n - n % 8
    for i in range(0, n8, 8):
        v0, v1, v2, v3 = a[i], a[i + 1], a[i + 2], a[i + 3]
        v4, v5, v6, v7 = a[i + 4], a[i + 5], a[i + 6], a[i + 7]
        m0 = v0 if v0 > m0 else m0
        m1 = v1 if v1 > m1 else m1
        m2 = v2 if v2 > m2 else m2
        m3 = v3 if v3 > m3 else m3
        m4 = v4 if v4 > m4 else m4
        m5 = v5 if v5 > m5 else m5
        m6 = v6 if v6 > m6 else m6
        m7 = v7 if v7 > m7 else m7
    for i in range(n8, n):
        m0 = a[i] if a[i] > m0 else m0
    return max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))


@njit(cache=True)
def ziggurat_fill(state, dim, xsig, ratio, ylo, yhi, a, out):
    """Fill ``out`` with draws of s from ``state`` (advanced in place; for tests)."""
    s = _fill_similarities(_load(state), out.size, out, dim, xsig, ratio, ylo, yhi, a)
    _store(s, state)


@njit(inline="always", cache=True)
def _wood(s, dim, kappa, xsig, ratio, ylo, yhi, a):
    """t = <x, y>, y ~ vMF(x, kappa): Wood (1994), written in 1 - w so that large kappa is stable.

    z ~ Beta((d-1)/2, (d-1)/2) is (1 + s)/2 with s the negative similarity; with
    b = (d-1)/(2 kappa + sqrt(4 kappa^2 + (d-1)^2)), x0 = (1-b)/(1+b):
    1 - w = 2 b z / (1 - (1-b) z), and Wood's test
    kappa w + (d-1) log(1 - x0 w) - c >= log u, c = kappa x0 + (d-1) log(1 - x0^2), reads
    kappa (1 - x0 - (1-w)) + (d-1) [log1p(x0 (1-w)/(1-x0)) - log1p(x0)] >= log u.
    """
    if kappa == 0.0:
        return _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a)
    d1 = dim - 1.0
    b = d1 / (2.0 * kappa + math.sqrt(4.0 * kappa * kappa + d1 * d1))
    x0 = (1.0 - b) / (1.0 + b)
    omx0 = 2.0 * b / (1.0 + b)
    lx0 = math.log1p(x0)
    while True:
        t, s = _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a)
        z = 0.5 * (1.0 + t)
        omw = 2.0 * b * z / (0.5 * (1.0 - t) + b * z)
        r, s = _next(s)
        u = np.float64((r >> _U(11)) + _U(1)) * _TWO_M53      # (0, 1]
        if kappa * (omx0 - omw) + d1 * (math.log1p(x0 * omw / omx0) - lx0) >= math.log(u):
            return 1.0 - omw, s


@njit(cache=True)
def wood_fill(state, dim, kappa, xsig, ratio, ylo, yhi, a, out):
    """Fill ``out`` with draws of <x, y>, y ~ vMF(x, kappa) (for tests)."""
    s = _load(state)
    for i in range(out.size):
        out[i], s = _wood(s, dim, kappa, xsig, ratio, ylo, yhi, a)
    _store(s, state)


# ------------------------------------------------------------------ the squeeze of the exact test
# About 0.5 % of the words fail the fast test; the exact test y < f(|x|), f(t) = (1 - t^2)^a,
# then costs a log1p and an exp.  In layer i such a point has |x| in [xl, xh] = [x_i ratio_i,
# min(x_i, 1)] (the fast-accept threshold and the layer's right end: u >= ratio_i, u < 1; x_0 is
# 1 rounded up, and beyond 1 the exact test rejects, as does the squeeze below), where f is
# within B of its chord L through (xl, f(xl)) and (xh, f(xh)):
#     |f(t) - L(t)| <= (xh - xl)^2 / 8 max |f''|,   f''(t) = 2a (1 - t^2)^(a-2) ((2a - 1) t^2 - 1),
# and for a >= 2 (d >= 7), on [xl, xh]: (1 - t^2)^(a-2) <= (1 - xl^2)^(a-2), and |(2a - 1) t^2 - 1|
# is at most its larger value at the two ends (it is monotone).  Where f is concave on the whole
# interval ((2a - 1) xh^2 <= 1) it lies above its chord, so L - f is in [-B, 0]; where it is
# convex ((2a - 1) xl^2 >= 1), in [0, B].  Each side gets a relative margin of 1e-6 and an
# absolute one of 1e-12 f(xl), far above the rounding of L, of y and of the exact test itself
# (~1e-15 f): then y < L - lo gives the exact test's "accept" and y > L + hi its "reject"
# without computing it; about 1 point in 9 (d = 128) still needs it, mostly in layer 0 (the
# tail) and the widest layers near the mode.  For d < 7 the exact test is always taken.

_SQUEEZE_CACHE = {}


def squeeze_table(xsig, ratio, ylo, yhi, a):
    """Per layer (xl, f(xl), slope of the chord, lo, hi) for ``_squeeze`` (NumPy; cached for the
    arrays of ``montecarlo.ziggurat_arrays``, which are cached themselves)."""
    key = (id(xsig), id(ratio), id(ylo), id(yhi), float(a))
    hit = _SQUEEZE_CACHE.get(key)
    if hit is not None and all(x is y for x, y in zip(hit[0], (xsig, ratio, ylo, yhi))):
        return hit[1]
    layers = ylo.size
    sq = np.zeros((layers, 5))
    sq[:, 3:] = np.inf
    if a >= 2.0 and xsig.size >= layers:
        xl = np.asarray(ratio[:layers], dtype=float) * np.asarray(xsig[:layers], dtype=float)
        xh = np.minimum(np.asarray(xsig[:layers], dtype=float), 1.0)   # x_0 = 1 is rounded up: beyond 1, f = 0
        with np.errstate(all="ignore"):
            fl = np.exp(a * np.log1p(-xl * xl))
            fh = np.exp(a * np.log1p(-xh * xh))
            h = xh - xl
            slope = (fh - fl) / h
            cl, ch = (2 * a - 1) * xl * xl - 1, (2 * a - 1) * xh * xh - 1
            q = np.maximum(np.abs(cl), np.abs(ch))
            margin = 1e-12 * fl
            bound = h * h / 8 * (2 * a * (1 - xl * xl) ** (a - 2) * q) * (1 + 1e-6) + margin
            lo = np.where(cl >= 0, bound, margin)      # convex: f <= L, "accept" needs y < L - B
            hi = np.where(ch <= 0, bound, margin)      # concave: f >= L, "reject" needs y > L + B
            both = (cl < 0) & (ch > 0)
            lo, hi = np.where(both, bound, lo), np.where(both, bound, hi)
        use = (xl >= 0) & (xh <= 1) & (h > 0) & (ylo < 1) & np.isfinite(slope) & np.isfinite(bound)
        sq[use] = np.stack([xl, fl, slope, lo, hi], axis=1)[use]
    if len(_SQUEEZE_CACHE) >= 16:
        _SQUEEZE_CACHE.clear()
    _SQUEEZE_CACHE[key] = ((xsig, ratio, ylo, yhi), sq)
    return sq


# ------------------------------------------------------------------ the ziggurat on a buffer of words
# Draws of s for d >= 4 consume the stream word by word: a word that passes the fast test is
# one draw; a word that fails it takes the next word as the uniform of the exact test, and
# the draw goes on with the word after (``_draw_similarity``).  The path below consumes the
# same words in the same way, so it yields the same draws, in pieces of at most PIECE words:
# 8-wide groups (``_zig_group_*``) compute every word's (x, fast test) and the sums over the
# words that are draws unless a rejection came just before them; then a short scalar walk
# over the few rejected words (``_zig_walk``) adds what the exact parse adds (points accepted
# by the exact test, and draws that follow the uniform of a rejection).  Only additions: each
# draw enters the sums once.  The words are generated LOOK words ahead of the group that reads
# them, inside the same loop: the scalar generator (integer units) and the vector work
# (floating-point units) then run side by side (1.2 to 1.3 times faster than one after the
# other), and a group does not read words still in the store buffer.

LOOK = 64


@njit(cache=True)
def _fill_words(s, w, lo, hi):
    """w[lo:hi] = the next words of the stream; returns the state."""
    for i in range(lo, hi):
        r, s = _next(s)
        w[i] = r
    return s


@njit(cache=True)
def _fill_words_tables(s, w, tx, tr, xsig, ratio, lo, hi):
    """``_fill_words`` that also reads each word's layer entries: tx[i] = xsig[w[i] & 2047] (signed: bit 10
    is the sign), tr[i] = ratio[w[i] & 1023] (the groups' fast step then loads them as vectors)."""
    for i in range(lo, hi):
        r, s = _next(s)
        w[i] = r
        tx[i] = xsig[r & _U(2047)]
        tr[i] = ratio[r & _U(1023)]
    return s


@njit(inline="always", cache=True)
def _fill8_tables(s, w, tx, tr, xsig, ratio, lo):
    """``_fill8`` with the layer entries of ``_fill_words_tables``: read here, in the scalar loop
    that makes the words, they cost a load and a store each.  The vector step's per-lane extract,
    load and insert (the lookup before) cost about 0.5 ns per negative at d = 128 (2.60 -> 2.07 ns
    with constant entries in its place); read here, all quantities take 2.48-2.50 ns against 2.60,
    the risk alone the same (one thread, alternated runs).  The signed entry xsig[w & 2047] spares
    the vector step the sign's shifts and xor: all quantities 2.41-2.43 ns, the risk 2.03 against 2.13."""
    b = _U(lo)
    for t in range(8):
        r, s = _next(s)
        i = b + _U(t)
        w[i] = r
        tx[i] = xsig[r & _U(2047)]
        tr[i] = ratio[r & _U(1023)]
    return s


@njit(inline="always", cache=True)
def _fill8(s, w, lo):
    """w[lo:lo+8] = the next 8 words (unsigned indices: plain stores); returns the state."""
    b = _U(lo)
    for t in range(8):
        r, s = _next(s)
        w[b + _U(t)] = r
    return s


@njit(fastmath={"contract"}, cache=True)
def _zig_walk(words, n, masks, xsig, ratio, ylo, yhi, a, sq, f1, f2, pend, pend_x):
    """The exact parse of words[:n] given masks (bit i: word i passed the fast test; bits >= n
    are ignored); needs words[n].  ``pend``, ``pend_x``: scratch (n entries, 2 x n).

    Returns the sums over the draws the groups left out, the number of draws in the piece
    (those the groups kept: words that pass with no failure just before them, and those
    added here), and where the next draw starts (n, or n + 1 when words[n] was taken as a
    uniform).  The loop has no call and branches on the data only where it is predictable:
    the exact tests the squeeze leaves undecided (about 1 in 10) are done after it."""
    a1 = a2 = a3 = 0.0
    cnt = 0
    q = 0                       # the word the next draw starts at
    npend = 0
    nf = 0                      # fx[:nf], fw[:nf]: the draws the loop adds (x, and 1 or 0)
    fx = pend_x[0]
    fw = pend_x[1]
    prev = _U(0)
    for blk in range((n + 63) >> 6):
        bits = ~masks[blk]                          # the words that failed
        m = n - (blk << 6)
        drop = bits | (bits << _U(1)) | prev
        if m < 64:
            drop &= (_U(1) << _U(m)) - _U(1)
        cnt += min(m, 64) - _popcount(drop)          # the draws the groups kept
        prev = bits >> _U(63)
        while bits != _U(0):
            p = (blk << 6) + np.int64(trailing_zeros(bits))
            if p >= n:
                break
            bits &= bits - _U(1)
            if p < q:
                # p = q - 1 was the uniform of the rejection before: the draw at q (if it passes
                # the fast test) was left out of the sums, add it
                if q < n:
                    x, yes = _zig_word(words[q], xsig, ratio)
                else:
                    x, yes = 0.0, False
            else:
                # a draw starts at p and fails the fast test: words[p + 1] is the uniform of
                # the exact test
                x, _ = _zig_word(words[p], xsig, ratio)
                v = np.float64(words[p + 1] >> _U(11)) * _TWO_M53
                yes, decided = _squeeze(words[p], v, x, ylo, yhi, sq)
                if not decided:
                    pend[npend] = p
                    npend += 1
                    yes = False
                q = p + 2
            fx[nf] = x
            fw[nf] = 1.0 if yes else 0.0
            nf += 1
            cnt += np.int64(yes)
    # the exponentials of the walk's draws after its branchy loop, where a mispredicted branch no
    # longer holds them up; the same sums in the same order, hence the same bits (risk only about 5 %
    # faster per negative at d = 128, all quantities about 1 %)
    for i in range(nf):
        x = fx[i]
        w = fw[i]
        e1 = exp_core(f1 * x) * w
        e2 = exp_core(f2 * x) * w
        a1 += e1
        a2 += e2
        a3 += e2 * x
    for i in range(npend):
        p = pend[i]
        x, _ = _zig_word(words[p], xsig, ratio)
        if _zig_slow(words[p], np.float64(words[p + 1] >> _U(11)) * _TWO_M53, x, ylo, yhi, a):
            e2 = exp_core(f2 * x)
            a1 += exp_core(f1 * x)
            a2 += e2
            a3 += e2 * x
            cnt += 1
    return a1, a2, a3, cnt, max(n, q)


@njit(cache=True)
def _unit_words(st, rows, cols, xsig, ratio, ylo, yhi, a, sq, inv_tau, kappa, weights,
                out_m, out_se, out_sw, out_sws):
    """``_unit`` for d >= 4 with the fixed shift m = 0 (see FIXED_SHIFT_MAX); returns the state."""
    words = np.empty(PIECE + LOOK + 16, dtype=np.uint64)
    tx = np.empty(PIECE + LOOK + 16)              # the words' layer entries xsig[w & 2047], ratio[w & 1023]
    tr = np.empty(PIECE + LOOK + 16)
    masks = np.zeros(PIECE // 8, dtype=np.uint8)
    mbits = masks.view(np.uint64)
    pend = np.empty(PIECE, dtype=np.int64)
    pend_x = np.empty((2, PIECE))
    acc = np.empty(24)
    have = 0                    # words[:have] are drawn and not used yet; words[0] starts a draw
    f2 = kappa if weights else 0.0
    for r in range(rows):
        se = sw = sws = 0.0
        left = cols
        while left > 0:
            n = min(PIECE, left)        # n words give at most n draws
            cap = n + 1 + LOOK
            if have < min(cap, LOOK):
                st = _fill_words_tables(st, words, tx, tr, xsig, ratio, have, min(cap, LOOK))
                have = min(cap, LOOK)
            acc[:] = 0.0
            carry = 1
            full = n >> 3
            if weights:
                for g in range(full):
                    if have < cap:
                        st = _fill8_tables(st, words, tx, tr, xsig, ratio, have)
                        have += 8
                    carry = _zig_group_all(words, g, n, tx, tr, inv_tau, f2, acc, masks, carry)
                if n & 7:
                    _zig_group_all_part(words, full, n, tx, tr, inv_tau, f2, acc, masks, carry)
            else:
                for g in range(full):
                    if have < cap:
                        st = _fill8_tables(st, words, tx, tr, xsig, ratio, have)
                        have += 8
                    carry = _zig_group_risk(words, g, n, tx, tr, inv_tau, f2, acc, masks, carry)
                if n & 7:
                    _zig_group_risk_part(words, full, n, tx, tr, inv_tau, f2, acc, masks, carry)
            if have < n + 1:            # the walk may read words[n]
                st = _fill_words_tables(st, words, tx, tr, xsig, ratio, have, n + 1)
                have = n + 1
            b1, b2, b3, c2, nxt = _zig_walk(words, n, mbits, xsig, ratio, ylo, yhi, a, sq, inv_tau, f2, pend, pend_x)
            se += _sum8(acc, 0) + b1
            if weights:
                sw += _sum8(acc, 1) + b2
                sws += _sum8(acc, 2) + b3
            left -= c2
            have -= nxt
            for i in range(have):       # keep the words not used yet
                words[i] = words[nxt + i]
                tx[i] = tx[nxt + i]
                tr[i] = tr[nxt + i]
        out_m[r] = 0.0
        out_se[r] = se
        out_sw[r] = sw
        out_sws[r] = sws
    return st


# ------------------------------------------------------------------ one work unit

@njit(cache=True)
def _unit(state, rows, cols, dim, xsig, ratio, ylo, yhi, a, sq, inv_tau, kappa, weights,
          out_m, out_se, out_sw, out_sws):
    """Streamed row sums of e^{(s - m)/tau}, e^{kappa (s - m)}, e^{kappa (s - m)} s.

    m = 0 when max(1/tau, |kappa|) <= FIXED_SHIFT_MAX (|s| <= 1: every term lies in
    [e^-300, e^300], so no row maximum is needed; d >= 4: the vectorised ziggurat);
    otherwise m is the running row maximum (terms <= 1, sums rescaled when it grows)."""
    st = _load(state)
    big = max(inv_tau, abs(kappa)) if weights else inv_tau
    if dim >= 4 and big <= FIXED_SHIFT_MAX:
        _unit_words(st, rows, cols, xsig, ratio, ylo, yhi, a, sq, inv_tau, kappa, weights,
                    out_m, out_se, out_sw, out_sws)
        return
    buf = np.empty(PIECE)
    for r in range(rows):
        m = -np.inf
        se = sw = sws = 0.0
        for start in range(0, cols, PIECE):
            n = min(PIECE, cols - start)
            st = _fill_similarities(st, n, buf, dim, xsig, ratio, ylo, yhi, a)
            bm = _max(buf, n)
            if bm > m:
                if m > -np.inf:
                    se *= math.exp((m - bm) * inv_tau)
                    if weights:
                        f = math.exp(kappa * (m - bm))
                        sw *= f
                        sws *= f
                m = bm
            if weights:
                a1, a2, a3 = _exp_sums3(buf, n, m, inv_tau, kappa)
                se += a1
                sw += a2
                sws += a3
            else:
                se += _exp_sum(buf, n, m, inv_tau)
        out_m[r] = m
        out_se[r] = se
        out_sw[r] = sw
        out_sws[r] = sws


@njit(inline="always", cache=True)
def _log1p_exp(x):
    """log(1 + e^x)."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@njit(cache=True)
def _block_values(states, b, rows, segments, dim, kappa, inv_tau, log_k, xsig, ratio, ylo, yhi, a,
                  weights, infonce, log_mu, pm, pse, psw, psws, block_stats):
    """Positives of block b, merge of its segments in order, per-tuple values, block (mean, M2, M3)."""
    st = _load(states[b, 0, 4:8])
    vals = np.empty((N_STATS, rows))
    u0 = b * segments
    for r in range(rows):
        p, st = _wood(st, dim, kappa, xsig, ratio, ylo, yhi, a)
        m, se, sw, sws = pm[u0, r], pse[u0, r], psw[u0, r], psws[u0, r]
        for g in range(1, segments):
            m2 = pm[u0 + g, r]
            mm = max(m, m2)
            se = se * math.exp((m - mm) * inv_tau) + pse[u0 + g, r] * math.exp((m2 - mm) * inv_tau)
            if weights:
                w1, w2 = math.exp(kappa * (m - mm)), math.exp(kappa * (m2 - mm))
                sw = sw * w1 + psw[u0 + g, r] * w2
                sws = sws * w1 + psws[u0 + g, r] * w2
            m = mm
        big_l = m * inv_tau + math.log(se)
        pt = p * inv_tau
        risk = big_l - pt
        if infonce:
            risk = _log1p_exp(risk)
        risk -= log_k
        ce = log_mu - pt
        search = big_l - log_k - inv_tau * (sws / sw) if weights else 0.0
        vals[0, r] = risk
        vals[1, r] = ce
        vals[2, r] = search
        vals[3, r] = ce - risk
        vals[4, r] = search - risk
    for q in range(N_STATS):
        mean = 0.0
        for r in range(rows):
            mean += vals[q, r]
        mean /= rows
        m2 = m3 = 0.0
        for r in range(rows):
            dv = vals[q, r] - mean
            d2 = dv * dv
            m2 += d2
            m3 += d2 * dv
        block_stats[b, q, 0] = mean
        block_stats[b, q, 1] = m2
        block_stats[b, q, 2] = m3


@njit(cache=True)
def _chunk_scratch(block_rows, segments):
    rows_max = 0
    for b in range(block_rows.size):
        rows_max = max(rows_max, block_rows[b])
    nunits = block_rows.size * segments
    return (np.empty((nunits, rows_max)), np.empty((nunits, rows_max)), np.empty((nunits, rows_max)),
            np.empty((nunits, rows_max)))


@njit(parallel=True, cache=True)
def _sphere_chunk(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a, sq,
                  weights, infonce, log_mu, block_stats):
    """Blocks of a chunk: per-block means and sums of squared deviations of the per-tuple values.

    ``states[b, g]`` (8 words) seeds unit (b, g): words 0-3 its negatives, and for
    g = 0 words 4-7 the block's positives.  ``block_rows[b]`` tuples per block, each
    with k negatives in ``segments`` segments of ``seg`` columns (the last shorter).
    ``block_stats[b, q] = (mean, M2, M3)`` of value q (N_STATS values, see above; the
    search values are 0 when ``weights`` is false).  Units run in parallel; every unit
    writes its own slots, so the result does not depend on the number of threads.
    """
    nblocks = block_rows.size
    inv_tau = 1.0 / tau
    log_k = math.log(k)
    pm, pse, psw, psws = _chunk_scratch(block_rows, segments)
    for u in prange(nblocks * segments):
        b = u // segments
        g = u - b * segments
        _unit(states[b, g], block_rows[b], min(seg, k - g * seg), dim, xsig, ratio, ylo, yhi, a, sq,
              inv_tau, kappa, weights, pm[u], pse[u], psw[u], psws[u])
    # int64(b): prange's index is typed int64 before the loop is outlined and uint64 after, and
    # each type would compile _block_values once more (about 2 s each on a cold cache)
    for b in prange(nblocks):
        _block_values(states, np.int64(b), block_rows[b], segments, dim, kappa, inv_tau, log_k, xsig, ratio,
                      ylo, yhi, a, weights, infonce, log_mu, pm, pse, psw, psws, block_stats)


@njit(cache=True)
def _sphere_chunk_serial(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a, sq,
                         weights, infonce, log_mu, block_stats):
    """``_sphere_chunk`` on one thread (the same result; no thread start-up for small chunks)."""
    nblocks = block_rows.size
    inv_tau = 1.0 / tau
    log_k = math.log(k)
    pm, pse, psw, psws = _chunk_scratch(block_rows, segments)
    for u in range(nblocks * segments):
        b = u // segments
        g = u - b * segments
        _unit(states[b, g], block_rows[b], min(seg, k - g * seg), dim, xsig, ratio, ylo, yhi, a, sq,
              inv_tau, kappa, weights, pm[u], pse[u], psw[u], psws[u])
    for b in range(nblocks):
        _block_values(states, b, block_rows[b], segments, dim, kappa, inv_tau, log_k, xsig, ratio,
                      ylo, yhi, a, weights, infonce, log_mu, pm, pse, psw, psws, block_stats)


def sphere_chunk(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a,
                 weights, infonce, log_mu, block_stats):
    """Blocks of a chunk (parallel over units): see ``_sphere_chunk``."""
    _sphere_chunk(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a,
                  squeeze_table(xsig, ratio, ylo, yhi, a), weights, infonce, log_mu, block_stats)


def sphere_chunk_serial(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a,
                        weights, infonce, log_mu, block_stats):
    """``sphere_chunk`` on one thread (the same result; no thread start-up for small chunks)."""
    _sphere_chunk_serial(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a,
                         squeeze_table(xsig, ratio, ylo, yhi, a), weights, infonce, log_mu, block_stats)


@njit(cache=True)
def merge_block_stats(block_rows, block_stats, acc_n, acc):
    """Per-block (mean, M2, M3) merged into acc[q], blocks in order: Chan et al.'s merge of (mean, M2)
    and Pebay's of M3 (``montecarlo.merge_moments``, the same formula in floats)."""
    n = acc_n[0]
    for b in range(block_rows.size):
        nb = block_rows[b]
        tot = n + nb
        for q in range(acc.shape[0]):
            mb, m2b, m3b = block_stats[b, q, 0], block_stats[b, q, 1], block_stats[b, q, 2]
            if n == 0:
                acc[q, 0] = mb
                acc[q, 1] = m2b
                acc[q, 2] = m3b
            else:
                delta = mb - acc[q, 0]
                fa, fb, ft = float(n), float(nb), float(tot)
                acc[q, 2] += (m3b + delta ** 3 * fa * fb * (fa - fb) / (ft * ft)
                              + 3.0 * delta * (fa * m2b - fb * acc[q, 1]) / ft)
                acc[q, 0] += delta * nb / tot
                acc[q, 1] += m2b + delta * delta * n * nb / tot
        n = tot
    acc_n[0] = n


# ------------------------------------------------------------------ the units' seeds
# numpy's SeedSequence (M. E. O'Neill's seed_seq_fe, as in numpy/random/bit_generator.pyx) for
# entropy = seed and spawn_key = (tag, block, segment), compiled: about 10 us per unit in Python,
# which was 4 % of a call at k = 4096 once the kernel had become fast.  The same words
# (``tests/quantities/test_montecarlo_compiled.py`` checks them against numpy).

_SS_INIT_A, _SS_MULT_A = 0x43b0d7e5, 0x931e8875
_SS_INIT_B, _SS_MULT_B = 0x8b51f9dd, 0x58f38ded
_SS_MIX_L, _SS_MIX_R = 0xca01f9dd, 0x4973f715
_M32 = _U(0xFFFFFFFF)


@njit(inline="always", cache=True)
def _ss_hashmix(value, h):
    """(hashmix(value), the new hash constant); uint32 arithmetic in uint64 words."""
    value = (value ^ h) & _M32
    h = (h * _U(_SS_MULT_A)) & _M32
    value = (value * h) & _M32
    return value ^ (value >> _U(16)), h


@njit(inline="always", cache=True)
def _ss_mix(x, y):
    r = (_U(_SS_MIX_L) * x - _U(_SS_MIX_R) * y) & _M32
    return r ^ (r >> _U(16))


@njit(cache=True)
def _seed_states(entropy, blocks, segments, out):
    """out[i, g] = SeedSequence(entropy, spawn_key=(tag, blocks[i], g)).generate_state(8, uint64):
    ``entropy`` = the seed's uint32 words, zero-padded to 4, then tag's word (one word each for
    tag, block and segment: all < 2^32)."""
    ne = entropy.size
    ent = np.empty(ne + 2, dtype=np.uint64)
    for t in range(ne):
        ent[t] = entropy[t]
    pool = np.empty(4, dtype=np.uint64)
    for i in range(blocks.size):
        for g in range(segments):
            ent[ne] = blocks[i]
            ent[ne + 1] = g
            h = _U(_SS_INIT_A)
            for t in range(4):
                pool[t], h = _ss_hashmix(ent[t], h)
            for src in range(4):
                for dst in range(4):
                    if src != dst:
                        v, h = _ss_hashmix(pool[src], h)
                        pool[dst] = _ss_mix(pool[dst], v)
            for src in range(4, ne + 2):
                for dst in range(4):
                    v, h = _ss_hashmix(ent[src], h)
                    pool[dst] = _ss_mix(pool[dst], v)
            h = _U(_SS_INIT_B)
            for w in range(8):
                lohi = _U(0)
                for half in range(2):
                    v = (pool[(2 * w + half) & 3] ^ h) & _M32
                    h = (h * _U(_SS_MULT_B)) & _M32
                    v = (v * h) & _M32
                    lohi |= (v ^ (v >> _U(16))) << _U(32 * half)
                out[i, g, w] = lohi


def unit_states(seed, tag, blocks, segments):
    """``SeedSequence(seed, spawn_key=(tag, b, g)).generate_state(8, np.uint64)`` for b in
    ``blocks``, g < segments: shape (len(blocks), segments, 8)."""
    blocks = np.asarray(blocks, dtype=np.int64)
    out = np.empty((blocks.size, segments, 8), dtype=np.uint64)
    words = []
    n = int(seed)
    while True:                 # the seed's uint32 words, lowest first (at least one)
        words.append(n & 0xFFFFFFFF)
        n >>= 32
        if n == 0:
            break
    words += [0] * (4 - len(words)) + [int(tag)]
    if blocks.size and (blocks.min() < 0 or blocks.max() >= 2 ** 32 or segments > 2 ** 32 or not 0 <= tag < 2 ** 32):
        raise ValueError("spawn keys must be 32-bit words")
    _seed_states(np.array(words, dtype=np.uint64), blocks, int(segments), out)
    return out


# ------------------------------------------------------------------ the machine's limit

@njit(cache=True)
def _limit_unit(state, per_unit, two):
    """The Monte Carlo's own machinery at its cheapest: the same pieces, words drawn LOOK ahead
    in the same loop, and one 8-wide exp per group of uniforms (two with ``two``)."""
    st = _load(state)
    words = np.empty(PIECE + LOOK + 16, dtype=np.uint64)
    acc = np.empty(16)
    have = 0
    tot = 0.0
    for start in range(0, per_unit, PIECE):
        n = min(PIECE, per_unit - start)
        cap = n + LOOK
        if have < min(cap, LOOK):
            st = _fill_words(st, words, have, min(cap, LOOK))
            have = min(cap, LOOK)
        acc[:] = 0.0
        full = n >> 3
        for g in range(full):
            if have < cap:
                st = _fill8(st, words, have)
                have += 8
            if two:
                _uniform_group2(words, g, n, 10.0, acc)
            else:
                _uniform_group(words, g, n, 10.0, acc)
        if n & 7:
            if two:
                _uniform_group2_part(words, full, n, 10.0, acc)
            else:
                _uniform_group_part(words, full, n, 10.0, acc)
        tot += _sum8(acc, 0) + (_sum8(acc, 1) if two else 0.0)
        have -= n
        for i in range(have):
            words[i] = words[n + i]
    return tot


@njit(parallel=True, cache=True)
def limit_uniform_exp(states, per_unit, two=False):
    """One uniform draw and one exp per element (xoshiro256**, ``_fast_exp``), summed; units in
    parallel.  ``two``: two exps per element (what the search cross-entropy's weights add)."""
    nunits = states.shape[0]
    out = np.zeros(nunits)
    for u in prange(nunits):
        out[u] = _limit_unit(states[u], per_unit, two)
    return out
