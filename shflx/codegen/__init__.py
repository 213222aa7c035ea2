"""Edge: LLVM IR -> object/assembly (llvmlite, `llvm`), object -> .hsaco (ld.lld, `link`), and
code-object inspection (pyelftools, `inspect`). The core never imports this package (STYLE
"Module boundaries"); each submodule imports its tool lazily."""
