//! Finite fields GF(q) for prime powers q (helper fills in).
