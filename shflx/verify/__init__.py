"""Proofs that a plan computes its target: Z3 for data movement, multisets for reductions/scans.

`api` is the entry point (prove / assert_proved); `smt` is one of the few homes of z3."""
