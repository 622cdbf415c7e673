"""A plain Python xml.sax scorer: the peer `cargo xtask bench align` measures kgeval against.

Builds the (entity1, entity2, relation) cell set of the reference and the system, then scores
partial mode (source and target complete): judged = system cells whose source or target is in
the reference. Usage: sax_scorer.py REFERENCE SYSTEM
"""
import sys
import xml.sax

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


class Cells(xml.sax.ContentHandler):
    def __init__(self):
        super().__init__()
        self.cells = set()
        self.e1 = self.e2 = None
        self.rel = "="
        self.text = []
        self.in_rel = False

    def startElementNS(self, name, qname, attrs):
        local = name[1]
        if local == "Cell":
            self.e1 = self.e2 = None
            self.rel = "="
        elif local in ("entity1", "entity2"):
            value = attrs.get((RDF, "resource"))
            if local == "entity1":
                self.e1 = value
            else:
                self.e2 = value
        elif local == "relation":
            self.in_rel = True
            self.text = []

    def characters(self, content):
        if self.in_rel:
            self.text.append(content)

    def endElementNS(self, name, qname):
        local = name[1]
        if local == "relation":
            self.in_rel = False
            self.rel = "".join(self.text).strip()
        elif local == "Cell":
            self.cells.add((self.e1, self.e2, self.rel))


def read(path):
    parser = xml.sax.make_parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, True)
    handler = Cells()
    parser.setContentHandler(handler)
    parser.parse(path)
    return handler.cells


def main():
    reference, system = read(sys.argv[1]), read(sys.argv[2])
    sources = {c[0] for c in reference}
    targets = {c[1] for c in reference}
    tp = len(reference & system)
    judged = sum(1 for c in system if c[0] in sources or c[1] in targets)
    p = tp / judged if judged else 0.0
    r = tp / len(reference) if reference else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    print(f"P {p} R {r} F1 {f} TP {tp} judged {judged}")


if __name__ == "__main__":
    main()
