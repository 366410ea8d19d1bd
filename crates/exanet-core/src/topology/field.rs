//! Finite fields GF(q) for prime powers q = p^m. The algebraic families (Slim Fly, PolarFly) are
//! defined over any prime power, and most of their useful sizes (q = 4, 8, 9, 16, 25, 27...) are
//! not primes, so plain modular arithmetic is not enough.
//!
//! Elements are the integers `0..q`: the base-p digits of an element are the coefficients of its
//! polynomial over GF(p) (digit i is the coefficient of x^i). Multiplication goes through
//! discrete logarithms to a primitive element, addition through Zech logarithms
//! (`1 + g^k` tabulated for every k), so every table has q entries instead of q².

/// Largest order [`GaloisField::new`] builds. The topologies built on fields reach their size
/// limits long before it; the bound keeps a mistyped q from building huge tables.
pub const MAX_ORDER: u32 = 1 << 16;

/// `(p, m)` with `q = p^m`, p prime and m >= 1, or `None` when q is not a prime power.
pub fn prime_power(q: u32) -> Option<(u32, u32)> {
    if q < 2 {
        return None;
    }
    let p = smallest_prime_factor(q);
    let mut rest = q;
    let mut m = 0;
    while rest % p == 0 {
        rest /= p;
        m += 1;
    }
    (rest == 1).then_some((p, m))
}

fn smallest_prime_factor(n: u32) -> u32 {
    let mut d = 2u32;
    while u64::from(d) * u64::from(d) <= u64::from(n) {
        if n % d == 0 {
            return d;
        }
        d += 1;
    }
    n
}

/// The closest prime powers below and above `q` within `lo..=hi`, for error messages that tell
/// the user what they could ask for instead.
pub(crate) fn nearby_prime_powers(q: u32, lo: u32, hi: u32) -> Vec<u32> {
    let below = (lo..q.min(hi.saturating_add(1)))
        .rev()
        .find(|&c| prime_power(c).is_some());
    let above = (q.saturating_add(1).max(lo)..=hi).find(|&c| prime_power(c).is_some());
    below.into_iter().chain(above).collect()
}

/// Formats a list of values as "a, b" for error messages.
pub(crate) fn list(values: &[u32]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The field GF(q). Building it costs O(q) memory and, at most, a few million steps.
#[derive(Debug, Clone)]
pub struct GaloisField {
    p: u32,
    m: u32,
    q: u32,
    /// `exp[k] = g^k` for the generator g of the tables, k in `0..2(q-1)` so that the sum of
    /// two logarithms needs no reduction.
    exp: Vec<u32>,
    /// `log[a]` with `g^log[a] = a`, for `a != 0`.
    log: Vec<u32>,
    /// Zech table: `one_plus[k] = 1 + g^k`.
    one_plus: Vec<u32>,
    minus_one: u32,
    primitive: u32,
}

impl GaloisField {
    /// GF(q), or why q has no field: finite fields exist exactly for prime powers.
    pub fn new(q: u32) -> Result<GaloisField, String> {
        let Some((p, m)) = prime_power(q) else {
            let nearby = nearby_prime_powers(q, 2, MAX_ORDER);
            return Err(format!(
                "{q} is not a prime power; nearby prime powers: {}",
                list(&nearby)
            ));
        };
        if q > MAX_ORDER {
            return Err(format!(
                "{q} is larger than the largest supported field order {MAX_ORDER}"
            ));
        }
        let cycle = primitive_cycle(p, m);
        let n = (q - 1) as usize;
        let mut exp = Vec::with_capacity(2 * n);
        exp.extend_from_slice(&cycle);
        exp.extend_from_slice(&cycle);
        let mut log = vec![0u32; q as usize];
        for (k, &e) in cycle.iter().enumerate() {
            log[e as usize] = k as u32;
        }
        // 1 + a only changes the constant coefficient, the lowest base-p digit.
        let one_plus = cycle
            .iter()
            .map(|&e| {
                let d0 = e % p;
                e - d0 + (d0 + 1) % p
            })
            .collect();
        let minus_one = if p == 2 { 1 } else { cycle[n / 2] };
        let gcd = |mut a: u32, mut b: u32| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let primitive = (1..q)
            .find(|&a| gcd(log[a as usize], q - 1) == 1)
            .unwrap_or(1);
        Ok(GaloisField {
            p,
            m,
            q,
            exp,
            log,
            one_plus,
            minus_one,
            primitive,
        })
    }

    /// The number of elements q.
    pub fn order(&self) -> u32 {
        self.q
    }

    /// `a + b`: digit-wise mod p, computed as a(1 + b/a) with the Zech table.
    pub fn add(&self, a: u32, b: u32) -> u32 {
        debug_assert!(a < self.q && b < self.q);
        if self.m == 1 {
            let s = a + b;
            return if s >= self.p { s - self.p } else { s };
        }
        if a == 0 {
            return b;
        }
        if b == 0 {
            return a;
        }
        // a + b = a (1 + b/a).
        let (la, lb) = (self.log[a as usize], self.log[b as usize]);
        let n = self.q - 1;
        let d = if lb >= la { lb - la } else { lb + n - la };
        self.mul(a, self.one_plus[d as usize])
    }

    /// `a - b`.
    pub fn sub(&self, a: u32, b: u32) -> u32 {
        self.add(a, self.neg(b))
    }

    /// The additive inverse `-a`.
    pub fn neg(&self, a: u32) -> u32 {
        debug_assert!(a < self.q);
        if self.m == 1 {
            return if a == 0 { 0 } else { self.p - a };
        }
        self.mul(a, self.minus_one)
    }

    /// `a * b`, by adding discrete logarithms.
    pub fn mul(&self, a: u32, b: u32) -> u32 {
        debug_assert!(a < self.q && b < self.q);
        if a == 0 || b == 0 {
            return 0;
        }
        self.exp[(self.log[a as usize] + self.log[b as usize]) as usize]
    }

    /// The multiplicative inverse; `None` for 0, which has none.
    pub fn inv(&self, a: u32) -> Option<u32> {
        debug_assert!(a < self.q);
        if a == 0 {
            return None;
        }
        Some(self.exp[(self.q - 1 - self.log[a as usize]) as usize])
    }

    /// The smallest element (in the integer encoding) that generates the multiplicative group:
    /// the constructions take powers of it, and "smallest" makes the choice reproducible.
    pub fn primitive_element(&self) -> u32 {
        self.primitive
    }

    /// `a^e`, with `0^0 = 1`.
    pub fn pow(&self, a: u32, e: u32) -> u32 {
        debug_assert!(a < self.q);
        if a == 0 {
            return u32::from(e == 0);
        }
        let n = u64::from(self.q - 1);
        self.exp[((u64::from(self.log[a as usize]) * u64::from(e)) % n) as usize]
    }
}

/// The powers `x^0, x^1, ..., x^(q-2)` of x modulo the first monic degree-m polynomial f over
/// GF(p) (in digit order) for which x has multiplicative order q-1, i.e. f is primitive: such a
/// polynomial is irreducible, so the quotient ring is GF(q), and x generates its multiplicative
/// group. Primitive polynomials exist for every (p, m), so the search always ends.
fn primitive_cycle(p: u32, m: u32) -> Vec<u32> {
    let m = m as usize;
    let q = p.pow(m as u32);
    let n = (q - 1) as usize;
    let mut weights = vec![1u32; m];
    for i in 1..m {
        weights[i] = weights[i - 1] * p;
    }
    let mut cycle = Vec::with_capacity(n);
    let mut f = vec![0u32; m];
    let mut cur = vec![0u32; m];
    // f's low coefficients f_0..f_{m-1}, as a base-p number; f_0 = 0 would make x a zero divisor.
    for code in 0..q {
        let mut c = code;
        for fi in f.iter_mut() {
            *fi = c % p;
            c /= p;
        }
        if f[0] == 0 {
            continue;
        }
        cycle.clear();
        cur.fill(0);
        cur[0] = 1;
        cycle.push(1);
        let mut ok = true;
        for _ in 1..n {
            // cur *= x, then replace x^m by -(f_0 + f_1 x + ... + f_{m-1} x^{m-1}).
            let top = u64::from(cur[m - 1]);
            cur.copy_within(0..m - 1, 1);
            cur[0] = 0;
            let mut value = 0;
            for ((c, &fi), &w) in cur.iter_mut().zip(&f).zip(&weights) {
                *c = ((u64::from(*c) + top * u64::from(p - fi)) % u64::from(p)) as u32;
                value += *c * w;
            }
            if value == 1 {
                ok = false;
                break;
            }
            cycle.push(value);
        }
        if ok {
            return cycle;
        }
    }
    unreachable!("every finite field has a primitive polynomial")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDERS: [u32; 22] = [
        2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 25, 27, 32, 49, 53, 64, 81, 121, 125, 128, 243, 1024,
    ];

    #[test]
    fn prime_power_decomposes() {
        assert_eq!(prime_power(2), Some((2, 1)));
        assert_eq!(prime_power(53), Some((53, 1)));
        assert_eq!(prime_power(64), Some((2, 6)));
        assert_eq!(prime_power(81), Some((3, 4)));
        assert_eq!(prime_power(125), Some((5, 3)));
        assert_eq!(prime_power(65536), Some((2, 16)));
        assert_eq!(prime_power(4_294_967_291), Some((4_294_967_291, 1)));
        for q in [0, 1, 6, 12, 100, 1000, u32::MAX] {
            assert_eq!(prime_power(q), None, "{q}");
        }
    }

    #[test]
    fn rejects_non_prime_powers() {
        for q in [0, 1, 6, 12] {
            assert!(GaloisField::new(q).is_err(), "{q}");
        }
        let msg = GaloisField::new(12).unwrap_err();
        assert!(
            msg.contains("12 is not a prime power") && msg.contains("11, 13"),
            "{msg}"
        );
        assert!(GaloisField::new(0)
            .unwrap_err()
            .contains("nearby prime powers: 2"));
        assert!(GaloisField::new(65537).unwrap_err().contains("larger"));
        assert_eq!(GaloisField::new(MAX_ORDER).unwrap().order(), MAX_ORDER);
    }

    /// Every nonzero element has an inverse, 0 and 1 are identities, negation and subtraction
    /// agree, p * 1 = 0, and the elements below p form the prime field (mod-p arithmetic).
    #[test]
    fn inverses_identities_and_prime_subfield() {
        for q in ORDERS {
            let f = GaloisField::new(q).unwrap();
            let (p, _) = prime_power(q).unwrap();
            assert_eq!(f.order(), q);
            assert_eq!(f.inv(0), None);
            for a in 0..q {
                assert_eq!(f.add(a, 0), a);
                assert_eq!(f.mul(a, 1), a);
                assert_eq!(f.mul(a, 0), 0);
                assert_eq!(f.add(a, f.neg(a)), 0, "q={q} a={a}");
                assert_eq!(f.sub(a, a), 0);
                if a != 0 {
                    let i = f.inv(a).unwrap();
                    assert_eq!(f.mul(a, i), 1, "q={q} a={a}");
                }
            }
            let mut s = 0;
            for _ in 0..p {
                s = f.add(s, 1);
            }
            assert_eq!(s, 0, "characteristic of GF({q})");
            for a in 0..p.min(20) {
                for b in 0..p.min(20) {
                    assert_eq!(f.add(a, b), (a + b) % p);
                    assert_eq!(f.mul(a, b), (a * b) % p);
                }
            }
        }
    }

    /// Commutativity, associativity and distributivity: on all triples for small fields, on a
    /// deterministic sample of triples for the larger ones.
    #[test]
    fn field_axioms() {
        for q in ORDERS {
            let f = GaloisField::new(q).unwrap();
            let step = if q <= 16 { 1 } else { q / 13 + 1 };
            let sample: Vec<u32> = (0..q).step_by(step as usize).chain([q - 1]).collect();
            for &a in &sample {
                for &b in &sample {
                    assert_eq!(f.add(a, b), f.add(b, a));
                    assert_eq!(f.mul(a, b), f.mul(b, a));
                    for &c in &sample {
                        assert_eq!(f.add(f.add(a, b), c), f.add(a, f.add(b, c)), "q={q}");
                        assert_eq!(f.mul(f.mul(a, b), c), f.mul(a, f.mul(b, c)), "q={q}");
                        assert_eq!(
                            f.mul(a, f.add(b, c)),
                            f.add(f.mul(a, b), f.mul(a, c)),
                            "q={q} a={a} b={b} c={c}"
                        );
                    }
                }
            }
            // Adding a fixed element permutes the field (the additive group is a group).
            for &a in &sample {
                let mut seen = vec![false; q as usize];
                for b in 0..q {
                    seen[f.add(a, b) as usize] = true;
                }
                assert!(seen.iter().all(|&s| s), "q={q} a={a}");
            }
        }
    }

    #[test]
    fn primitive_element_generates_the_multiplicative_group() {
        for q in ORDERS {
            let f = GaloisField::new(q).unwrap();
            let g = f.primitive_element();
            let mut x = 1;
            let mut seen = vec![false; q as usize];
            for k in 0..q - 1 {
                assert_eq!(f.pow(g, k), x);
                assert!(!seen[x as usize], "q={q}: g={g} has order {k} < {}", q - 1);
                seen[x as usize] = true;
                x = f.mul(x, g);
            }
            assert_eq!(x, 1);
            // The smallest generator: no smaller nonzero element has order q-1.
            for a in 1..g {
                assert!((1..q - 1).any(|k| f.pow(a, k) == 1), "q={q} a={a}");
            }
        }
        assert_eq!(GaloisField::new(7).unwrap().primitive_element(), 3);
        assert_eq!(GaloisField::new(53).unwrap().primitive_element(), 2);
        let f = GaloisField::new(5).unwrap();
        assert_eq!(f.pow(0, 0), 1);
        assert_eq!(f.pow(0, 3), 0);
        assert_eq!(f.pow(2, 5), 2);
    }
}
