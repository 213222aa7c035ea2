"""Edge: GPU launchers for hardware tests (`hip`: hip-python on AMD; `emulator`: the AMD ISA
emulator; `amd`: which of the two). Each one reports "no GPU"
as a value with a reason, never as an exception, so hw_tests can skip cleanly."""
