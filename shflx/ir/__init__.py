"""Reading and editing LLVM IR: text helpers, the lane-function evaluator, shuffle sites, reduction
and scan chains, inline-PTX translation, HIP ds_bpermute sites, and the rewrite that replaces sites
with their lowerings."""
