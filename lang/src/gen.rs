//! Generators of valid scenarios (placeholder, filled in by the generator work).
