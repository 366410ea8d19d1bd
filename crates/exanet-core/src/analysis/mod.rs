//! Structural analysis (helper fills in).
