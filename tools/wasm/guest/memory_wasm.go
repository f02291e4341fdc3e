package guest

import "runtime/debug"

// softMemoryLimit keeps a tool's heap well inside the host's cap on its
// linear memory (64 MiB for the built-in tools). Go's default GC lets the
// heap grow to twice the live data, and growing past the cap is a fatal
// "out of memory"; with a soft limit the GC works harder near it instead.
// A tool may set its own with debug.SetMemoryLimit in main or init.
const softMemoryLimit = 40 << 20

func init() { debug.SetMemoryLimit(softMemoryLimit) }
