//! Streaming Alignment-API RDF/XML reader (quick-xml).
