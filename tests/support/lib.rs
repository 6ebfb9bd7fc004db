//! Support code for the conformance tests.
