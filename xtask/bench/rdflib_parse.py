"""Parse an alignment with rdflib (the peer for `cargo xtask bench align`) and count cells."""
import sys

import rdflib

g = rdflib.Graph()
g.parse(sys.argv[1], format="xml")
ALIGN = rdflib.Namespace("http://knowledgeweb.semanticweb.org/heterogeneity/alignment#")
print(sum(1 for _ in g.subjects(ALIGN.entity1, None)))
