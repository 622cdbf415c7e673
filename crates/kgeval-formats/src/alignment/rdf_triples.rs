//! The Alignment-API vocabulary read as RDF triples (oxttl, oxrdfxml).
