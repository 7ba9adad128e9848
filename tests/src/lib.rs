//! Shared helpers for the integration tests: locating ../shared, the oracle, normalization.
