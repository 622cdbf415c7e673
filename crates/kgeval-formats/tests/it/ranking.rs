//! Ranking readers on real DISO / Bio-ML / DeepOnto files and on malformed inputs.
