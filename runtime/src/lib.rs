//! `ad-runtime`: the interpreter that runs a compiled plan against a device backend.
