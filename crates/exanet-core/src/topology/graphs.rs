//! Graph-built families (helper fills in).
